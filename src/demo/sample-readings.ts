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
