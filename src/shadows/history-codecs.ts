import * as t from 'io-ts';
import { closed, intStringBetween } from '../core/codecs';
import { decodeOrThrow } from '../core/decode-errors';
import { RevisionKey } from './history';

/** Bounds of history reads (docs/device-api.md "Shadow history", docs/limits-and-errors.md "Limits"). */
export const HISTORY_LIMITS = {
  /** Revisions in one page of `GET /shadow/revisions` when `limit` is not given. */
  defaultPageSize: 20,
  /** The largest `limit`: a page of whole documents is at most this many times the shadow size limit. */
  maxPageSize: 100,
} as const;

/** A time in a query: epoch ms, or a negative offset from now (`-3600000`: an hour ago). */
const TimeString = new t.Type<number, string, unknown>(
  'time',
  (u): u is number => typeof u === 'number',
  (u, c) => (typeof u === 'string' && /^-?\d{1,16}$/.test(u) ? t.success(Number(u)) : t.failure(u, c, 'expected a time in ms')),
  String,
);

/** `next` of a page, given back as `cursor`: the last revision's `modified` and `rev`. */
const Cursor = new t.Type<RevisionKey, string, unknown>(
  'cursor',
  (u): u is RevisionKey => typeof u === 'object' && u !== null,
  (u, c) => {
    const m = typeof u === 'string' ? /^(\d{1,16})-(\d{1,16})$/.exec(u) : null;
    return m ? t.success({ modified: Number(m[1]), rev: Number(m[2]) }) : t.failure(u, c, 'expected the `next` of a page');
  },
  (k) => `${k.modified}-${k.rev}`,
);

export const cursorOf = (k: RevisionKey): string => Cursor.encode(k);

const AtQuery = closed({ at: TimeString });
const RevisionsQuery = closed({}, { from: TimeString, to: TimeString, limit: intStringBetween(1, HISTORY_LIMITS.maxPageSize), cursor: Cursor });

/** What a transport read of the query, each parameter given once at most; absent ones undefined. */
export type RawQuery = Readonly<Record<string, string | undefined>>;

/** The parameters of a history page a transport reads, each by `get` (undefined when absent). */
export const revisionsQueryFrom = (get: (name: string) => string | undefined): RawQuery =>
  Object.fromEntries(['from', 'to', 'limit', 'cursor'].map((name) => [name, get(name)]));

const present = (raw: RawQuery) => Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));

const resolve = (time: number, now: number) => (time < 0 ? Math.max(0, now + time) : time);

export function decodeAt(raw: string, now: number): number {
  return resolve(decodeOrThrow(AtQuery, { at: raw }, 'INVALID_QUERY').at, now);
}

export interface RevisionsRequest {
  from: number;
  to: number;
  limit: number;
  before?: RevisionKey;
}

/** `from` and `to` default to the first and the last revision; both inclusive, by the revisions' `modified`. */
export function decodeRevisionsQuery(raw: RawQuery, now: number): RevisionsRequest {
  const q = decodeOrThrow(RevisionsQuery, present(raw), 'INVALID_QUERY');
  const from = q.from === undefined ? 0 : resolve(q.from, now);
  const to = q.to === undefined ? Number.MAX_SAFE_INTEGER : resolve(q.to, now);
  return { from, to, limit: q.limit ?? HISTORY_LIMITS.defaultPageSize, ...(q.cursor ? { before: q.cursor } : {}) };
}
