import { createHash } from 'node:crypto';
import { isRight } from 'fp-ts/Either';
import { AppError } from '../core/errors';
import { CursorPayload } from './codecs';
import { Position } from './order';

/**
 * The `next` of a fleet query's page: where the page ended (the last device's sort value and deviceid) and a digest
 * of the query it belongs to (project, filter, group, sort), so it cannot continue another query. It holds no state on
 * the server: any node continues it, and it stays valid however long it is kept.
 */
export interface QueryIdentity {
  readonly projectid: string;
  readonly filter: string;
  readonly groupid?: string;
  readonly sort?: { readonly field: string; readonly order?: string };
}

const digestOf = (query: QueryIdentity): string =>
  createHash('sha256')
    .update(JSON.stringify([query.projectid, query.filter, query.groupid ?? null, query.sort?.field ?? null, query.sort?.order ?? 'asc']))
    .digest('base64url')
    .slice(0, 16);

export const encodeCursor = (query: QueryIdentity, after: Position): string =>
  Buffer.from(JSON.stringify({ k: after.key, d: after.deviceid, q: digestOf(query) } satisfies CursorPayload)).toString('base64url');

/** The position a cursor continues from; 400 INVALID_BODY for one this service did not write for this query. */
export function decodeCursor(query: QueryIdentity, cursor: string): Position {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    payload = undefined;
  }
  const decoded = CursorPayload.decode(payload);
  if (!isRight(decoded)) throw new AppError('INVALID_BODY', 'cursor: not a cursor this service handed out; use the `next` of an earlier answer');
  if (decoded.right.q !== digestOf(query)) {
    throw new AppError('INVALID_BODY', 'cursor: it continues another query (project, filter, groupid and sort must stay as they were)');
  }
  return { key: decoded.right.k, deviceid: decoded.right.d };
}
