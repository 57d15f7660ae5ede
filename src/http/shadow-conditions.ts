import type { Context } from 'koa';
import { AppError } from '../core/errors';
import { etagOf, RevCondition } from '../shadows/condition';
import { Shadow } from '../shadows/shadow';

/**
 * One element of an entity-tag list (RFC 9110 §8.8.3, §5.6.1): optional `W/`, a quoted opaque tag, then `,` or the
 * end. The tag may be missing: empty elements (`"1", , "2"`) are allowed and ignored.
 */
const ELEMENT = /[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(,|$)/y;
const REV_TAG = /^(0|[1-9][0-9]{0,14})$/;

/**
 * The revisions an If-Match / If-None-Match list names, or '*'. A tag that is not one of ours (`"abc"`) names no
 * revision: it never matches. If-Match compares strongly, so a weak tag never matches there; If-None-Match compares
 * weakly (RFC 9110 §13.1.1-2), so `W/"5"` names rev 5 there.
 */
function revisionsOf(header: 'if-match' | 'if-none-match', value: string): '*' | number[] {
  if (value.trim() === '*') return '*';
  const revs: number[] = [];
  let tags = 0;
  for (let at = 0; ;) {
    ELEMENT.lastIndex = at;
    const element = ELEMENT.exec(value);
    if (!element) throw new AppError('INVALID_CONDITION', `${header}: expected * or a list of entity tags such as "7" (got ${value})`);
    const [, weak, tag, end] = element;
    if (tag !== undefined) {
      tags++;
      if (REV_TAG.test(tag) && (weak === undefined || header === 'if-none-match')) revs.push(Number(tag));
    }
    if (end === '') break;
    at = ELEMENT.lastIndex;
  }
  if (tags === 0) throw new AppError('INVALID_CONDITION', `${header}: expected * or at least one entity tag such as "7"`);
  return revs;
}

/** The write's If-Match and If-None-Match (issue 25 §1, docs/device-api.md "Conditional writes"); undefined without either. */
export function revConditionOf(ctx: Context): RevCondition | undefined {
  const match = ctx.get('If-Match');
  const noneMatch = ctx.get('If-None-Match');
  if (match === '' && noneMatch === '') return undefined;
  return {
    ...(match !== '' ? { match: revisionsOf('if-match', match) } : {}),
    ...(noneMatch !== '' ? { noneMatch: revisionsOf('if-none-match', noneMatch) } : {}),
  };
}

/** Tells the client the shadow's revision as its entity tag, for its next conditional write. */
export function setShadowEtag(ctx: Context, shadow: Pick<Shadow, 'rev'>): void {
  ctx.set('ETag', etagOf(shadow));
}

/**
 * Sets the ETag of a shadow read, and answers 304 Not Modified (no body) when If-None-Match names the revision read,
 * weakly, or is `*` (RFC 9110 §13.1.2): a client that polls a shadow gets the document only when it changed. True when
 * answered so.
 */
export function notModifiedSince(ctx: Context, shadow: Pick<Shadow, 'rev'>): boolean {
  setShadowEtag(ctx, shadow);
  const noneMatch = ctx.get('If-None-Match');
  if (noneMatch === '') return false;
  const revs = revisionsOf('if-none-match', noneMatch);
  if (revs !== '*' && !revs.includes(shadow.rev)) return false;
  ctx.status = 304;
  return true;
}
