import type { Logger } from 'pino';
import { PointOutbox, PointWriter } from './port';
import { InvalidPointError } from './validate-points';

export interface PointRelay {
  /** Moves every queued point into the time-series store; resolves when done, or once a try failed. */
  flush(): Promise<void>;
  /**
   * A flush within RELAY_DELAY_MS, for a write that queued points: the points of the writes made meanwhile share
   * it, so the time-series store takes one large write (one transaction, one fsync) instead of one per shadow write.
   * Queries never wait for it: they `flush` first.
   */
  flushSoon(): void;
  /** Stops retrying; queued points stay queued for the next start. */
  close(): Promise<void>;
}

/**
 * Points moved per writePoints call, at most. Large: a time-series write seals each series whose head fills, and a
 * seal into recent blocks costs their size, so the fewer writes a series gets, the less it rewrites (issue 12).
 */
const BATCH_POINTS = 50_000;
/** How long queued points may wait for the relay after a write, in ms (see flushSoon). */
export const RELAY_DELAY_MS = 200;
/** Waits between retries while the time-series store refuses writes, doubling up to the last. */
const RETRY_MS = [100, 200, 500, 1000, 2000, 5000];

/**
 * Carries points from the durable outbox (filled in the same transaction as each shadow write) to the time-series
 * store. Runs one flush at a time; a flush asked for while one runs is done right after it. Points are removed from
 * the outbox only after the store took them, so a crash in between writes them twice, which is harmless: a
 * (series, timestamp) written twice keeps its value. Over KairosDB, which acknowledges points a second before they are
 * in Cassandra, the writer holds them a while longer and writes them again if KairosDB restarts
 * (adapters/kairosdb/kairosdb-write-hold.ts).
 */
export function createOutboxRelay(outbox: PointOutbox, writer: PointWriter, logger: Logger): PointRelay {
  let running: Promise<void> | undefined;
  let again = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;
  let soonTimer: NodeJS.Timeout | undefined;

  async function drain(): Promise<void> {
    for (;;) {
      const { points, upTo } = await outbox.peek(BATCH_POINTS);
      if (points.length === 0) return;
      try {
        await writer.writePoints(points);
      } catch (err) {
        // A point no store can keep would block the queue forever; shadow writes check points before queuing
        // them, so this is a bug of ours: log it loudly and move on.
        if (!(err instanceof InvalidPointError)) throw err;
        logger.error({ err, dropped: points.length }, 'invalid points dropped from the outbox');
      }
      await outbox.remove(upTo);
    }
  }

  async function loop(): Promise<void> {
    do {
      again = false;
      try {
        await drain();
        failures = 0;
      } catch (err) {
        const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)];
        failures++;
        logger.warn({ err, retryInMs: wait }, 'time-series store refused points; they stay queued');
        if (!closed) retryTimer ??= setTimeout(() => {
          retryTimer = undefined;
          void flush();
        }, wait);
        return;
      }
    } while (again && !closed);
  }

  function flush(): Promise<void> {
    if (closed) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = loop().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    flush,
    flushSoon() {
      if (closed || soonTimer) return;
      soonTimer = setTimeout(() => {
        soonTimer = undefined;
        void flush();
      }, RELAY_DELAY_MS);
    },
    async close() {
      // Points waiting for a flushSoon go now, so that a clean stop leaves the outbox empty.
      if (soonTimer && !closed) {
        clearTimeout(soonTimer);
        soonTimer = undefined;
        await flush();
      }
      closed = true;
      clearTimeout(retryTimer);
      await running;
    },
  };
}
