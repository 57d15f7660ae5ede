import { Duration } from './query-model';

/**
 * `start_relative` / `end_relative`: now minus a duration, computed like KairosDB's RelativeTime (reference §3.4):
 * a UTC java.util.Calendar, whatever the query's time_zone. Milliseconds are exact 64-bit arithmetic; every other
 * unit casts the value to a 32-bit int first (so huge values wrap, as in Java); months and years clamp the day of
 * month (Mar 31 - 1 month = Feb 28, Feb 29 - 1 year = Feb 28) and keep the time of day.
 */
export function relativeTime(now: number, duration: Duration): number {
  if (duration.unit === 'MILLISECONDS') return now - duration.value;
  const amount = -javaIntCast(duration.value);
  switch (duration.unit) {
    case 'SECONDS': return now + amount * 1000;
    case 'MINUTES': return now + amount * 60_000;
    case 'HOURS': return now + amount * 3_600_000;
    case 'DAYS': return now + amount * 86_400_000;
    case 'WEEKS': return now + amount * 7 * 86_400_000;
    case 'MONTHS': return addCalendarMonths(now, amount);
    default: return addCalendarMonths(now, amount * 12);
  }
}

/** `(int) value` in Java: the low 32 bits of the long, as a signed int. */
function javaIntCast(value: number): number {
  return Number(BigInt.asIntN(32, BigInt(Math.trunc(value))));
}

function addCalendarMonths(instant: number, months: number): number {
  const date = new Date(instant);
  const targetMonth = date.getUTCMonth() + months;
  const year = date.getUTCFullYear() + Math.floor(targetMonth / 12);
  const month = ((targetMonth % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(2000, month + 1, 0)).getUTCDate();
  const day = Math.min(date.getUTCDate(), month === 1 ? (isLeap(year) ? 29 : 28) : lastDay);
  const result = new Date(instant);
  result.setUTCFullYear(year, month, day);
  return result.getTime();
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
