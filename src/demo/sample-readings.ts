/** A reading of the demo sensor, as its shadow `data`. */
export interface Reading {
  temp: number;
  humid: number;
}

export interface TimedReading {
  data: Reading;
  /** Absolute epoch ms (a batch item's `ts`). */
  ts: number;
}

const DAY_MS = 24 * 3600 * 1000;
const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * A plausible room: the temperature follows the day (coolest around 05:00 UTC, warmest around 17:00), the humidity
 * goes the other way, and both wobble a little so that charts and aggregators have something to show.
 */
export function sampleReading(at: number, random: () => number = Math.random): Reading {
  const phase = 2 * Math.PI * ((at % DAY_MS) / DAY_MS - 11 / 24);
  const daily = Math.sin(phase);
  return {
    temp: round1(26 + 4 * daily + (random() - 0.5)),
    humid: round1(60 - 12 * daily + 2 * (random() - 0.5)),
  };
}

/**
 * Readings every `stepMs` over the `spanMs` before `now` (oldest first, the newest one step before now), cut into
 * batches of at most `batchSize` items for PUT /shadow/batch.
 */
export function backfillBatches(now: number, spanMs: number, stepMs: number, batchSize: number): TimedReading[][] {
  const items: TimedReading[] = [];
  for (let ts = now - spanMs; ts < now; ts += stepMs) items.push({ data: sampleReading(ts), ts });
  const batches: TimedReading[][] = [];
  for (let i = 0; i < items.length; i += batchSize) batches.push(items.slice(i, i + batchSize));
  return batches;
}

const HOUR_MS = 3600 * 1000;
const MINUTE_MS = 60 * 1000;

/**
 * The readings a sensor missed between its last one (`after`) and `now`, as a device with a buffer would send them
 * once back: every `intervalMs` for a gap of up to an hour, one a minute for a longer one, and only the last 24 h of
 * it; oldest first, after `after` and before `now`, in batches of at most `batchSize`.
 */
export function gapBatches(after: number, now: number, intervalMs: number, batchSize: number): TimedReading[][] {
  const step = now - after > HOUR_MS ? MINUTE_MS : intervalMs;
  const items: TimedReading[] = [];
  for (let ts = Math.max(after + step, now - DAY_MS); ts < now; ts += step) items.push({ data: sampleReading(ts), ts });
  const batches: TimedReading[][] = [];
  for (let i = 0; i < items.length; i += batchSize) batches.push(items.slice(i, i + batchSize));
  return batches;
}
