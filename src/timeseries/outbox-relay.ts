import type { Logger } from 'pino';
import { PointOutbox } from '../shadows/port';
import { PointWriter } from './port';
import { InvalidPointError } from './validate-points';

export interface PointRelay {
  /** Moves every queued point into the time-series store; resolves when done, or once a try failed. */
  flush(): Promise<void>;
  /** Stops retrying; queued points stay queued for the next start. */
  close(): Promise<void>;
}

/** Points moved per writePoints call. */
const BATCH_POINTS = 10_000;
/** Waits between retries while the time-series store refuses writes, doubling up to the last. */
const RETRY_MS = [100, 200, 500, 1000, 2000, 5000];

/**
 * Carries points from the durable outbox (filled in the same transaction as each shadow write) to the time-series
 * store. Runs one flush at a time; a flush asked for while one runs is done right after it. Points are removed from
 * the outbox only after the store took them, so a crash in between writes them twice, which is harmless: a
 * (series, timestamp) written twice keeps its value.
 */
export function createOutboxRelay(outbox: PointOutbox, writer: PointWriter, logger: Logger): PointRelay {
  let running: Promise<void> | undefined;
  let again = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;

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
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await running;
    },
  };
}
