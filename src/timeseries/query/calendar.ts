import { Duration, TimeUnit } from './query-model';
import { fromLocal, MAX_INSTANT, timeOverflowError, toLocal, Zone } from './time-zone';

/**
 * The Joda-Time field arithmetic behind KairosDB's range buckets (reference §6.1, RangeAggregator: `getDifference
 * AsLong` and `add` of the unit's field in a GregorianChronology of the zone) and rate/sampler lengths (§6.2).
 * - MILLISECONDS to HOURS are absolute durations: DST does not matter.
 * - DAYS and WEEKS count local (wall-clock) days: a Paris day can last 23 or 25 hours.
 * - MONTHS and YEARS count calendar fields in local time, clamping the day of month.
 */

const FIXED_MS: Partial<Record<TimeUnit, number>> = { MILLISECONDS: 1, SECONDS: 1000, MINUTES: 60_000, HOURS: 3_600_000 };
const DAY = 86_400_000;
const WEEK = 7 * DAY;
/** Joda's BasicGJChronology.FEB_29: the ms into a year at which a leap year's Feb 29 starts. */
const FEB_29 = (31 + 29 - 1) * DAY;

export const fixedUnitMs = (unit: TimeUnit): number | undefined => FIXED_MS[unit];

/** Whole units of `unit` from `from` to `to`, truncated toward zero (negative when to < from). */
export function unitsBetween(unit: TimeUnit, zone: Zone, to: number, from: number): number {
  const fixed = FIXED_MS[unit];
  if (fixed !== undefined) return Math.trunc((to - from) / fixed);
  const localTo = toLocal(zone, to);
  const localFrom = toLocal(zone, from);
  switch (unit) {
    case 'DAYS': return Math.trunc((localTo - localFrom) / DAY);
    case 'WEEKS': return Math.trunc((localTo - localFrom) / WEEK);
    case 'MONTHS': return localTo < localFrom ? -monthDifference(localFrom, localTo) : monthDifference(localTo, localFrom);
    default: return localTo < localFrom ? -yearDifference(localFrom, localTo) : yearDifference(localTo, localFrom);
  }
}

/** `instant` plus `count` units (Joda DateTimeField.add: local arithmetic keeps the original offset if valid). */
export function addUnits(unit: TimeUnit, zone: Zone, instant: number, count: number): number {
  const fixed = FIXED_MS[unit];
  const result = fixed !== undefined
    ? instant + count * fixed
    : fromLocal(zone, addLocal(unit, toLocal(zone, instant), count), instant);
  return checked(result);
}

/** The length in ms of one sampling period starting at `instant` (KairosDB Util.getSamplingDuration). */
export function samplingLengthMs(instant: number, sampling: Duration, zone: Zone): number {
  const fixed = FIXED_MS[sampling.unit];
  if (fixed !== undefined) return sampling.value * fixed;
  // DateTime.plusDays and friends go through the zone without the original-offset hint.
  const end = fromLocal(zone, addLocal(sampling.unit, toLocal(zone, instant), sampling.value));
  return checked(end) - instant;
}

/**
 * The anchor `align_sampling` moves the start to (RangeAggregator.alignRangeBoundary), in the zone:
 * YEARS -> Jan 1, MONTHS -> day 1, WEEKS -> Monday, DAYS to SECONDS -> midnight of the day (not the top of the
 * hour, whatever the docs say), MILLISECONDS -> the start of the second. Time of day 00:00:00.000 except for ms.
 */
export function alignAnchor(unit: TimeUnit, zone: Zone, instant: number): number {
  if (unit === 'MILLISECONDS') return instant - mod(instant, 1000);
  const local = toLocal(zone, instant);
  const date = new Date(local - mod(local, DAY));
  if (unit === 'YEARS') date.setUTCMonth(0, 1);
  else if (unit === 'MONTHS') date.setUTCDate(1);
  else if (unit === 'WEEKS') date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  return checked(fromLocal(zone, date.getTime(), instant));
}

function addLocal(unit: TimeUnit, local: number, count: number): number {
  if (unit === 'DAYS') return local + count * DAY;
  if (unit === 'WEEKS') return local + count * WEEK;
  const date = new Date(local);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const day = date.getUTCDate();
  const timeOfDay = mod(local, DAY);
  const [newYear, newMonth] = unit === 'MONTHS'
    ? [year + Math.floor((month + count) / 12), mod(month + count, 12)]
    : [year + count, month];
  return dayStart(newYear, newMonth, Math.min(day, daysInMonth(newYear, newMonth))) + timeOfDay;
}

/** Joda BasicMonthOfYearDateTimeField.getDifferenceAsLong for minuend >= subtrahend (local ms). */
function monthDifference(minuend: number, subtrahend: number): number {
  const a = new Date(minuend);
  const b = new Date(subtrahend);
  const [ay, am, ad] = [a.getUTCFullYear(), a.getUTCMonth(), a.getUTCDate()];
  const [by, bm] = [b.getUTCFullYear(), b.getUTCMonth()];
  let difference = (ay - by) * 12 + am - bm;
  let adjusted = subtrahend;
  // Joda's special case: on the last day of the minuend's month, clamp a larger subtrahend day first.
  if (ad === daysInMonth(ay, am) && b.getUTCDate() > ad) adjusted = dayStart(by, bm, ad) + mod(subtrahend, DAY);
  if (minuend - dayStart(ay, am, 1) < adjusted - dayStart(by, bm, 1)) difference--;
  return difference;
}

/** Joda BasicGJChronology.getYearDifference for minuend >= subtrahend (local ms), balancing Feb 29. */
function yearDifference(minuend: number, subtrahend: number): number {
  const ay = new Date(minuend).getUTCFullYear();
  const by = new Date(subtrahend).getUTCFullYear();
  let aRem = minuend - dayStart(ay, 0, 1);
  let bRem = subtrahend - dayStart(by, 0, 1);
  if (bRem >= FEB_29) {
    if (isLeap(by)) {
      if (!isLeap(ay)) bRem -= DAY;
    } else if (aRem >= FEB_29 && isLeap(ay)) {
      aRem -= DAY;
    }
  }
  return ay - by - (aRem < bRem ? 1 : 0);
}

function dayStart(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  return date.getTime();
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysInMonth = (year: number, month: number) =>
  month === 1 ? (isLeap(year) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month];
const mod = (a: number, b: number) => ((a % b) + b) % b;

/** Joda throws on overflow (a 500 in KairosDB); a sampling that leaves the representable range is the query's fault. */
function checked(instant: number): number {
  if (!Number.isFinite(instant) || Math.abs(instant) > MAX_INSTANT) throw timeOverflowError();
  return instant;
}

