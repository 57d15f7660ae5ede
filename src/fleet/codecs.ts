import * as t from 'io-ts';
import { closed, intBetween, ScopeId, stringMatching } from '../core/codecs';

/** Bounds of a fleet query's body (docs/fleet-query.md "Limits"). */
export const FLEET_QUERY_BOUNDS = {
  /** Devices one page holds at most, and when `limit` is absent. */
  maxLimit: 100,
  defaultLimit: 20,
  /** Paths `fields` may name. */
  maxFields: 32,
  /** Characters of a cursor this service hands out stay far below this. */
  maxCursorLength: 1024,
} as const;

/** The members of `$device` in a filter, which `sort` may also name (`$device.modified`). */
export const DEVICE_MEMBERS = ['deviceid', 'groupid', 'alias', 'rev', 'modified'] as const;

/** A path into shadow data: 1 to 8 dot-separated non-empty keys, 256 characters at most (`battery`, `env.temp`). */
const DATA_PATH = /^[^.]{1,128}(\.[^.]{1,128}){0,7}$/;
export const DataPath = stringMatching('path', DATA_PATH, 'expected a path into the shadow data: 1 to 8 keys joined by dots, such as env.temp');

/** What `sort` orders by: a path into the shadow data, or a member of `$device`. */
export const SortPath = stringMatching(
  'sort field',
  new RegExp(`^(\\$device\\.(${DEVICE_MEMBERS.join('|')})|${DATA_PATH.source.slice(1, -1)})$`),
  `expected a path into the shadow data (env.temp) or one of ${DEVICE_MEMBERS.map((m) => `$device.${m}`).join(', ')}`,
);

const atMost = <C extends t.Mixed>(codec: C, max: number) => {
  const list = t.array(codec);
  return new t.Type<t.TypeOf<C>[], t.TypeOf<C>[], unknown>(
    `at most ${max} of ${codec.name}`,
    (u): u is t.TypeOf<C>[] => list.is(u) && u.length <= max,
    (u, c) => (Array.isArray(u) && u.length > max ? t.failure(u, c, `expected at most ${max} paths`) : list.validate(u, c)),
    t.identity,
  );
};

/**
 * POST /v2/shadows/query and POST /v2/admin/projects/{projectid}/shadows/query (docs/fleet-query.md): which devices
 * (`filter`, an expression over `$` the shadow data and `$device`; `groupid`), what of them (`fields`), in what order
 * (`sort`, then deviceid), how many (`limit`) and from where (`cursor`, the `next` of the page before).
 */
export const FleetQueryRequest = closed(
  {},
  {
    filter: t.string,
    groupid: ScopeId,
    fields: atMost(DataPath, FLEET_QUERY_BOUNDS.maxFields),
    sort: closed({ field: SortPath }, { order: t.keyof({ asc: null, desc: null }) }),
    limit: intBetween(1, FLEET_QUERY_BOUNDS.maxLimit),
    cursor: stringMatching('cursor', new RegExp(`^[A-Za-z0-9_-]{1,${FLEET_QUERY_BOUNDS.maxCursorLength}}$`), 'expected the `next` of an earlier answer'),
  },
);
export type FleetQueryRequest = t.TypeOf<typeof FleetQueryRequest>;

/** A cursor as this service wrote it (order.ts): decoded like any input, it comes back from a client. */
export const CursorPayload = t.type({ k: t.union([t.number, t.string, t.boolean, t.null]), d: t.string, q: t.string });
export type CursorPayload = t.TypeOf<typeof CursorPayload>;
