import { AppError } from '../core/errors';
import { Shadow } from './shadow';

/**
 * What a write expects of the shadow's revision (issue 25 §1), in RFC 9110 §13.1 terms with the shadow's `rev` as
 * its entity tag: `"<rev>"`. A condition that fails refuses the write whole (REV_MISMATCH), before anything is
 * planned, stored, charged or announced.
 */
export interface RevCondition {
  /** If-Match (and a body's `rev`): the shadow's rev is one of these; '*': the shadow was written at least once. */
  readonly match?: '*' | readonly number[];
  /** If-None-Match: the shadow's rev is none of these; '*': the shadow was never written (rev 0). */
  readonly noneMatch?: '*' | readonly number[];
}

/** The shadow's entity tag, as REST's ETag header carries it (a strong tag: RFC 9110 §8.8.3). */
export const etagOf = (shadow: Pick<Shadow, 'rev'>): string => `"${shadow.rev}"`;

const holds = (tags: '*' | readonly number[], rev: number) => (tags === '*' ? rev > 0 : tags.includes(rev));

/** True when the shadow meets every condition: If-Match before If-None-Match (RFC 9110 §13.2.2), all of them. */
function meetsConditions(conditions: readonly RevCondition[], shadow: Pick<Shadow, 'rev'>): boolean {
  const { rev } = shadow;
  return conditions.every(({ match, noneMatch }) => (match === undefined || holds(match, rev)) && (noneMatch === undefined || !holds(noneMatch, rev)));
}

/** Throws REV_MISMATCH, with the shadow's current `rev`, unless the shadow meets every condition. */
export function checkConditions(conditions: readonly RevCondition[], shadow: Pick<Shadow, 'rev'>): void {
  if (meetsConditions(conditions, shadow)) return;
  const message = `the shadow is at rev ${shadow.rev}, not as the write expects; nothing was applied`;
  throw new AppError('REV_MISMATCH', message, { rev: shadow.rev });
}

export const isRevMismatch = (err: unknown): boolean => err instanceof AppError && err.code === 'REV_MISMATCH';
