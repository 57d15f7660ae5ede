import { queryError } from './kairos-query-error';

/**
 * Time zones for the calendar arithmetic of range aggregators, rate and sampler (reference §3.5). KairosDB uses
 * Joda-Time zones; here the IANA database comes from Intl (issue 3: `time_zone` is an IANA zone, default UTC).
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The instants a JS Date (and so Intl) can represent. */
export const MAX_INSTANT = 8.64e15;

export interface Zone {
  readonly id: string;
  /** Offset from UTC in ms at an instant (local = utc + offset). */
  offsetAt(utc: number): number;
}

/**
 * Joda throws on overflow (a 500 in KairosDB); a sampling or range that leaves the representable time range is the
 * query's fault, so a 400 (issue 10: a huge sampling in a zone other than UTC used to end in Intl's RangeError).
 */
export function timeOverflowError() {
  return queryError('time arithmetic overflow: the sampling or range leaves the representable time range');
}

export const UTC_ZONE: Zone = { id: 'UTC', offsetAt: () => 0 };

const zones = new Map<string, Zone>([['UTC', UTC_ZONE]]);
let canonicalIds: string[] | undefined;

/** Sorted IANA ids, UTC included: what the "must be one of [...]" message lists (Joda lists its own ids). */
export function availableZoneIds(): string[] {
  if (canonicalIds === undefined) {
    canonicalIds = [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])].sort();
  }
  return canonicalIds;
}

/**
 * Whether `id` names a zone. Joda ids are case-sensitive while Intl ignores case, so a known id spelt with other
 * capitals (`asia/bangkok`) is refused, as KairosDB refuses it.
 */
export function isValidZoneId(id: string): boolean {
  if (id === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: id });
  } catch {
    return false;
  }
  const lower = id.toLowerCase();
  const known = availableZoneIds().find((z) => z.toLowerCase() === lower);
  return known === undefined || known === id;
}

/** The zone of a validated id; `""` is UTC (KairosDB's DateTimeZoneDeserializer). */
export function zoneFor(id: string): Zone {
  const key = id === '' ? 'UTC' : id;
  let zone = zones.get(key);
  if (zone === undefined) {
    zone = intlZone(key);
    zones.set(key, zone);
  }
  return zone;
}

function intlZone(id: string): Zone {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: id, hourCycle: 'h23', era: 'short',
    year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  });
  // Offsets change at most a few times a year; a cache by minute keeps Intl (microseconds a call) off the hot path.
  const cache = new Map<number, number>();
  const compute = (utc: number): number => {
    const second = Math.floor(utc / 1000) * 1000;
    let year = 0, month = 1, day = 1, hour = 0, minute = 0, sec = 0, bc = false;
    for (const part of format.formatToParts(second)) {
      const n = Number(part.value);
      if (part.type === 'year') year = n;
      else if (part.type === 'month') month = n;
      else if (part.type === 'day') day = n;
      else if (part.type === 'hour') hour = n;
      else if (part.type === 'minute') minute = n;
      else if (part.type === 'second') sec = n;
      else if (part.type === 'era') bc = part.value.startsWith('B');
    }
    const local = new Date(0);
    local.setUTCFullYear(bc ? 1 - year : year, month - 1, day);
    local.setUTCHours(hour, minute, sec, 0);
    return local.getTime() - second;
  };
  return {
    id,
    offsetAt(utc: number): number {
      // NaN comes from Date arithmetic past the representable range (year 275760); Intl would throw a RangeError.
      if (!Number.isFinite(utc)) throw timeOverflowError();
      const clamped = Math.max(-MAX_INSTANT + DAY, Math.min(MAX_INSTANT - DAY, utc));
      const key = Math.floor(clamped / MINUTE);
      let offset = cache.get(key);
      if (offset === undefined) {
        if (cache.size > 50_000) cache.clear();
        offset = compute(clamped);
        cache.set(key, offset);
      }
      return offset;
    },
  };
}

export const toLocal = (zone: Zone, utc: number): number => utc + zone.offsetAt(utc);

/**
 * The instant of a local wall-clock time, as Joda's convertLocalToUTC(local, strict=false, original) resolves it:
 * keep the original instant's offset when it is valid there; in an overlap take the earlier instant; in a gap
 * (a time that does not exist) move forward by the gap, using the offset from before the transition.
 */
export function fromLocal(zone: Zone, local: number, originalUtc?: number): number {
  if (zone === UTC_ZONE) return local;
  const valid = (offset: number) => zone.offsetAt(local - offset) === offset;
  if (originalUtc !== undefined) {
    const original = zone.offsetAt(originalUtc);
    if (valid(original)) return local - original;
  }
  const before = zone.offsetAt(local - DAY);
  const after = zone.offsetAt(local + DAY);
  const guess = zone.offsetAt(local - zone.offsetAt(local));
  const candidates = [before, after, guess].filter(valid);
  if (candidates.length === 0) return local - before;
  return local - Math.max(...candidates);
}
