import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Logger } from 'pino';
import { MAX_TTL_MS } from '../../timeseries/durations';
import { Point } from '../../timeseries/point';
import { PointWriter } from '../../timeseries/port';
import { assertValidPoints, InvalidPointError } from '../../timeseries/validate-points';
import { errorsOf, KairosDbClient, unavailable } from './kairosdb-client';
import { WriteHold } from './kairosdb-write-hold';

const gzipAsync = promisify(gzip);

/** One metric object of KairosDB's write body (reference §2.1). */
interface MetricBody {
  name: string;
  tags: Readonly<Record<string, string>>;
  type: 'double';
  datapoints: [number, number][];
  /** Seconds KairosDB keeps the points, counted from when it writes them (reference §2.5); absent: its default. */
  ttl?: number;
}

/** Cassandra's largest TTL, in s: a point written a little ahead of its time may ask for a few hours more. */
const MAX_TTL_SECONDS = MAX_TTL_MS / 1000;

/**
 * Points into KairosDB: `POST /api/v1/datapoints`, one gzip body (`Content-Type: application/gzip`, reference §2.7)
 * per call, one metric object per series. KairosDB answers 204 once the points are in its write queue; they become
 * readable, and are in Cassandra, about a second later (infra/README.md): `hold` keeps them meanwhile, to write them
 * again if KairosDB restarts without its queue.
 *
 * - Every point goes as a double (`"type": "double"`), as the embedded store keeps them: KairosDB infers long or
 *   double from each value's text and keeps them in separate series (§2.3, §2.4), so `20` then `20.5` at one
 *   timestamp would come back as two points, and its per-row `limit` (§4.2) would count each half apart.
 * - A (series, timestamp) given twice in one call is sent once, with its last value: KairosDB would store both in one
 *   Cassandra batch, where the tie does not go to the last one.
 * - A failure (refused, timed out, 5xx) throws AppError BACKEND_UNAVAILABLE: the outbox relay keeps the points and
 *   retries; a retry of points KairosDB did take rewrites the same values. A 400 means KairosDB refuses the points
 *   themselves, which no retry cures: InvalidPointError, which the relay logs and drops (validation here makes it a
 *   bug of ours).
 * - Retention (issue 23 §2): a point with an expiry goes with `ttl` = the seconds left until it, rounded up, computed
 *   when it is posted (a replay of the hold computes it again), since KairosDB counts a TTL from its own write, not
 *   from the point's time. A point already expired is not posted at all (a back-filled one, or one that waited in
 *   the outbox). Points of one series with different ttls go as separate metric objects: `ttl` is per object.
 */
export function createKairosDbPointWriter(client: KairosDbClient, logger: Logger, hold?: WriteHold): PointWriter {
  const send = pointPoster(client, logger);
  return {
    async writePoints(points: readonly Point[]) {
      assertValidPoints(points);
      if (points.length === 0) return;
      // Held after KairosDB's 204 until it has had them long enough to be in Cassandra (kairosdb-write-hold.ts).
      await (hold ? hold.write(points, () => send(points)) : send(points));
    },
  };
}

/** Posts points to KairosDB as described above, without holding them: also how the hold replays them. */
export function pointPoster(client: KairosDbClient, logger: Logger, now: () => number = Date.now): (points: readonly Point[]) => Promise<void> {
  async function post(bodies: MetricBody[]): Promise<void> {
    const body = await gzipAsync(JSON.stringify(bodies));
    const res = await client.request('POST', '/datapoints', { data: body, headers: { 'content-type': 'application/gzip' } });
    if (res.status === 204 || res.status === 200) return;
    if (res.status === 400) throw new InvalidPointError(`KairosDB refused the points: ${errorsOf(res.data).join('; ')}`);
    logger.warn({ status: res.status, body: res.data }, 'KairosDB refused a write');
    throw unavailable(`KairosDB answered ${res.status} to a write`);
  }
  return async (points) => {
    const chunks = chunksOf(metricBodies(points, now()), POST_POINTS);
    // A few POSTs at a time: KairosDB parses and queues each request on a thread of its own.
    for (let i = 0; i < chunks.length; i += PARALLEL_POSTS) await Promise.all(chunks.slice(i, i + PARALLEL_POSTS).map(post));
  };
}

/**
 * Points per POST, about: a large write (the outbox relay moves up to 50,000 points at a time) goes as several POSTs,
 * PARALLEL_POSTS at a time; one series' points may be split between them. A failed POST fails the whole write, which
 * the relay retries whole: KairosDB keeps one value per (series, timestamp), so points sent twice change nothing.
 */
const POST_POINTS = 5_000;
const PARALLEL_POSTS = 4;

/** `bodies` cut into groups of about `size` points, series split where one would pass it. */
function chunksOf(bodies: MetricBody[], size: number): MetricBody[][] {
  const chunks: MetricBody[][] = [];
  let chunk: MetricBody[] = [];
  let room = size;
  for (const body of bodies) {
    for (let from = 0; from < body.datapoints.length; ) {
      const take = Math.min(room, body.datapoints.length - from);
      chunk.push(take === body.datapoints.length ? body : { ...body, datapoints: body.datapoints.slice(from, from + take) });
      from += take;
      room -= take;
      if (room === 0) {
        chunks.push(chunk);
        chunk = [];
        room = size;
      }
    }
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/**
 * Groups points by series (metric + tags), keeping the last value of a repeated timestamp in its first place; points of
 * one series that expire go in one object per ttl (seconds left at `now`), and those expired at `now` are left out.
 */
export function metricBodies(points: readonly Point[], now = Date.now()): MetricBody[] {
  const bySeries = new Map<string, { name: string; tags: Point['tags']; at: Map<number, Point> }>();
  // The sorted tags of each tags object, made once: the points of one field share theirs (timeseries/shadow-points.ts).
  const tagKeys = new Map<object, string>();
  const tagsKeyOf = (tags: Point['tags']) => {
    let key = tagKeys.get(tags);
    if (key === undefined) tagKeys.set(tags, (key = JSON.stringify(Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))));
    return key;
  };
  for (const p of points) {
    // The metric's length first, so that no metric and tags can read as another pair.
    const key = `${p.metric.length}:${p.metric}${tagsKeyOf(p.tags)}`;
    let series = bySeries.get(key);
    if (series === undefined) bySeries.set(key, (series = { name: p.metric, tags: p.tags, at: new Map() }));
    // A Map keeps a key's first place when it is set again: the last value, in the place of the first.
    series.at.set(p.timestamp, p);
  }
  const bodies: MetricBody[] = [];
  for (const { name, tags, at } of bySeries.values()) {
    const byTtl = new Map<number | undefined, MetricBody>();
    for (const p of at.values()) {
      const ttl = p.expiresAt === undefined ? undefined : Math.min(Math.ceil((p.expiresAt - now) / 1000), MAX_TTL_SECONDS);
      if (ttl !== undefined && p.expiresAt! <= now) continue;
      let body = byTtl.get(ttl);
      if (body === undefined) {
        body = ttl === undefined ? { name, tags, type: 'double', datapoints: [] } : { name, tags, type: 'double', datapoints: [], ttl };
        byTtl.set(ttl, body);
        bodies.push(body);
      }
      body.datapoints.push([p.timestamp, p.value]);
    }
  }
  return bodies;
}
