import * as t from 'io-ts';

/**
 * NETPIE's ttl durations (reference §7.1, the schema's `operation.store.ttl`): a whole number and a unit, `ms` `s` `m`
 * `h` `d` `y` (a year is 365 days), or a bare number meaning milliseconds (`3000` = 3 s). Read once here for every
 * level of retention: POINT_RETENTION, a project's, a datatag's or a schema field's.
 */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, y: 365 * 86_400_000 };

/** Largest unit first, for formatTtl. */
const UNITS_DESCENDING = ['y', 'd', 'h', 'm', 's'] as const;

/**
 * The longest ttl: 20 years of 365 days (630,720,000 s), Cassandra's largest TTL, which KairosDB passes each point's
 * `ttl` to; one bound for both engines so that a duration valid on one is valid on the other.
 */
export const MAX_TTL_MS = 20 * 365 * 86_400_000;

export type TtlParse = { readonly ms: number } | { readonly problem: string };

const PROBLEM = 'must be a whole number of ms, s, m, h, d or y (such as "30d"), or of milliseconds';

/** A ttl in ms, or why the input is not one (a line to show after the field's name). */
export function parseTtl(input: string | number): TtlParse {
  if (typeof input === 'number') return bounded(input);
  const match = /^\s*(\d{1,16})\s*(ms|s|m|h|d|y)?\s*$/.exec(input);
  if (!match) return { problem: PROBLEM };
  return bounded(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']);
}

function bounded(ms: number): TtlParse {
  if (!Number.isSafeInteger(ms)) return { problem: PROBLEM };
  if (ms < 1) return { problem: 'must be at least 1 ms' };
  if (ms > MAX_TTL_MS) return { problem: 'must be at most 20y' };
  return { ms };
}

/** The shortest exact text of a ttl in the largest unit that divides it: 2592000000 -> `30d`, 1500 -> `1500ms`. */
export function formatTtl(ms: number): string {
  const unit = UNITS_DESCENDING.find((u) => ms % UNIT_MS[u] === 0);
  return unit ? `${ms / UNIT_MS[unit]}${unit}` : `${ms}ms`;
}

/** A ttl at an edge (a JSON body, a CLI argument): text or a number in, ms inside, the short text out. */
export const Ttl = new t.Type<number, string, unknown>(
  'Ttl',
  (u): u is number => typeof u === 'number' && 'ms' in parseTtl(u),
  (u, c) => {
    if (typeof u !== 'string' && typeof u !== 'number') return t.failure(u, c, PROBLEM);
    const parsed = parseTtl(u);
    return 'ms' in parsed ? t.success(parsed.ms) : t.failure(u, c, parsed.problem);
  },
  formatTtl,
);
