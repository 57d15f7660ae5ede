import type { Logger } from 'pino';
import { Point } from '../../timeseries/point';
import { PointRange } from '../../timeseries/port';
import { InvalidPointError } from '../../timeseries/validate-points';
import { KairosDbClient, unavailable } from './kairosdb-client';

/** KAIROSDB_WRITE_HOLD_MS's default: KairosDB writes a point to Cassandra about a second after its 204. */
export const DEFAULT_WRITE_HOLD_MS = 5000;
/** How often KairosDB is asked whether it is still up while points are held, in ms. */
const PROBE_MS = 250;
/** A probe is one small GET; one that takes longer than this counts as KairosDB being away. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * KairosDB answers 204 to a write once the points are in its write queue (memory, then an on-disk queue), about a
 * second before Cassandra has them: killed in that second, and started again without its queue (as infra/kairosdb.sh
 * does, since a torn queue stops its writer for good), it loses points the service has acknowledged (issue 23: 10 of
 * 2,100). So the writer keeps each write's points in memory for `holdMs` after the 204 and writes them again if
 * KairosDB went away meanwhile: KairosDB overwrites an identical metric, tags and timestamp, so a replay changes
 * nothing that was kept.
 *
 * Detecting a restart: KairosDB 1.2 has no uptime or start-time call (`/version` answers the same on every start), so
 * the hold asks `GET /api/v1/version` every PROBE_MS while it holds points and counts any failed probe or failed
 * write as KairosDB having gone away. A restart cannot slip between two probes: it takes about ten seconds here (JVM,
 * Guice, the Cassandra session), forty probes. A probe that fails for another reason (a pause, a network blip) only
 * costs a harmless replay. After a failure, the first probe that succeeds replays every held point, in the order
 * first written (the last value of a timestamp written twice stays last), and starts their hold again.
 *
 * Deletes: a held point replayed after a delete that covered it would come back. `settle` makes a delete wait until
 * the held points it covers have been held their full time (they are then in Cassandra and leave the hold), which
 * also keeps KairosDB's own queue from writing them after the delete. Writes and replays run one at a time, so a
 * replay never lands after a newer write of the same timestamp.
 */
export interface WriteHold {
  /** Runs `post` (one write to KairosDB) alone, and holds `points` once it succeeded. */
  write(points: readonly Point[], post: () => Promise<void>): Promise<void>;
  /**
   * Resolves once no point held now is covered by `covers` (they have all been held their full time); BACKEND_UNAVAILABLE
   * if that takes longer than the hold and one KairosDB deadline (KairosDB is down).
   */
  settle(covers: (point: Point) => boolean): Promise<void>;
  /** How many points are held: for tests and logs. */
  readonly size: number;
  /** Stops probing; held points are forgotten. Idempotent. */
  close(): void;
}

export interface WriteHoldOptions {
  readonly client: KairosDbClient;
  readonly logger: Logger;
  /** KAIROSDB_WRITE_HOLD_MS; 0 holds nothing. */
  readonly holdMs: number;
  /** KAIROSDB_TIMEOUT_MS: how much longer than the hold a delete waits for KairosDB to confirm held points. */
  readonly timeoutMs: number;
  /** Replays a held write (the points of several writes merged, in order). */
  readonly replay: (points: readonly Point[]) => Promise<void>;
  readonly now?: () => number;
  /** PROBE_MS, shorter in tests. */
  readonly probeMs?: number;
}

interface Held {
  readonly points: readonly Point[];
  /** When KairosDB last answered 204 for these points (ms). */
  sentAt: number;
}

export function createWriteHold(options: WriteHoldOptions): WriteHold {
  const { client, logger, holdMs, timeoutMs, replay } = options;
  const now = options.now ?? Date.now;
  const probeMs = options.probeMs ?? PROBE_MS;
  let held: Held[] = [];
  let count = 0;
  /** KairosDB failed a probe or a write since the held points were sent: they are replayed when it answers again. */
  let wentAway = false;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  /** Writes and replays, one at a time. */
  let turn: Promise<unknown> = Promise.resolve();
  /** Woken whenever points leave the hold. */
  let waiters: (() => void)[] = [];

  function alone<T>(work: () => Promise<T>): Promise<T> {
    const result = turn.then(work);
    turn = result.catch(() => undefined);
    return result;
  }

  function watch(): void {
    if (closed || timer || held.length === 0) return;
    timer = setTimeout(() => void probe(), probeMs);
  }

  function release(before: number): void {
    const kept = held.filter((h) => h.sentAt > before);
    if (kept.length === held.length) return;
    held = kept;
    count = kept.reduce((n, h) => n + h.points.length, 0);
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  }

  async function probe(): Promise<void> {
    const startedAt = now();
    try {
      const res = await client.request('GET', '/version', { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
      if (res.status !== 200) throw new Error(`KairosDB answered ${res.status} to /version`);
      if (wentAway) await alone(replayHeld);
      else release(startedAt - holdMs);
    } catch (err) {
      if (!wentAway) logger.warn({ err, held: count }, 'KairosDB went away while points were held: they are written again once it is back');
      wentAway = true;
    } finally {
      timer = undefined;
      watch();
    }
  }

  async function replayHeld(): Promise<void> {
    if (closed || held.length === 0) {
      wentAway = false;
      return;
    }
    const replayed = held;
    try {
      await replay(replayed.flatMap((h) => h.points));
    } catch (err) {
      if (!(err instanceof InvalidPointError)) throw err;
      // KairosDB took these points once; refusing them now would block every replay after it.
      logger.error({ err, dropped: count }, 'KairosDB refused held points it had taken: they are no longer held');
      release(Infinity);
      wentAway = false;
      return;
    }
    const sentAt = now();
    for (const h of replayed) h.sentAt = sentAt;
    wentAway = false;
    logger.info({ points: count }, 'KairosDB is back: held points written again');
  }

  return {
    write(points, post) {
      return alone(async () => {
        try {
          await post();
        } catch (err) {
          // A 400 is about the points, not about KairosDB being there.
          if (!(err instanceof InvalidPointError)) {
            wentAway = true;
            watch();
          }
          throw err;
        }
        if (holdMs <= 0 || closed || points.length === 0) return;
        held.push({ points, sentAt: now() });
        count += points.length;
        watch();
      });
    },

    async settle(covers) {
      const pending = new Set(held.filter((h) => h.points.some(covers)));
      if (pending.size === 0) return;
      const deadline = now() + holdMs + timeoutMs;
      while (held.some((h) => pending.has(h))) {
        const left = deadline - now();
        if (left <= 0 || closed) {
          throw unavailable('KairosDB has not confirmed points written to it in the last seconds, which the delete must cover');
        }
        await new Promise<void>((resolve) => {
          const timeout = setTimeout(resolve, Math.min(left, probeMs));
          waiters.push(() => {
            clearTimeout(timeout);
            resolve();
          });
        });
      }
    },

    get size() {
      return count;
    },

    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      held = [];
      count = 0;
    },
  };
}

/** Whether a delete of `ranges` covers `point`: its metric, every tag it filters on, and its time. */
export function rangesCover(ranges: readonly PointRange[], point: Point): boolean {
  return ranges.some(
    (r) =>
      r.metric === point.metric &&
      point.timestamp >= r.start &&
      point.timestamp <= r.end &&
      Object.entries(r.tags).every(([name, values]) => values.length === 0 || values.includes(point.tags[name])),
  );
}
