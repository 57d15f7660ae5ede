import type { Database } from 'better-sqlite3';
import { copyValues, decodeExpiries, decodeRun, decodeTimestamps, encodeRun } from './sqlite-timeseries-codec';
import { concatRuns, dropExpired, firstAtOrAfter, mergePreferringNewer, Run } from './sqlite-timeseries-runs';

interface BlockMeta {
  id: number;
  first_ts: number;
  last_ts: number;
  count: number;
  /** When its last point expires; null: one never does. */
  expires_at: number | null;
}

interface BlockBlobs {
  timestamps: Buffer;
  values: Buffer;
  expiries: Buffer | null;
}

/** Whether a block still holds a point that has not expired at `now`. */
const isLive = (m: BlockMeta, now: number) => m.expires_at === null || m.expires_at > now;

/**
 * The `blocks` table: each series' sealed points as immutable runs that never overlap in time, so that in any
 * block the points are sorted and unique, and a range read is: find the blocks overlapping the range (index only),
 * decode them straight into the result arrays, trim the first and the last.
 */
export class Blocks {
  private readonly metasEndingIn;
  private readonly metaEndingAfter;
  private readonly lastMeta;
  private readonly blobs;
  private readonly insert;
  private readonly remove;

  /** `blockPoints`: the size a block is filled to, a trade between rows per scan and bytes rewritten per seal. */
  constructor(
    db: Database,
    private readonly blockPoints: number,
  ) {
    // Blocks never overlap, so those meeting [start, end] are the ones ending in it plus at most the next one.
    // Two bounded index searches: `last_ts >= start AND first_ts <= end` would walk the index to the series' end.
    this.metasEndingIn = db.prepare(
      `SELECT id, first_ts, last_ts, count, expires_at FROM blocks
       WHERE series_id = ? AND last_ts >= ? AND last_ts <= ? ORDER BY last_ts`,
    );
    this.metaEndingAfter = db.prepare(
      'SELECT id, first_ts, last_ts, count, expires_at FROM blocks WHERE series_id = ? AND last_ts > ? ORDER BY last_ts LIMIT 1',
    );
    this.lastMeta = db.prepare(
      'SELECT id, first_ts, last_ts, count, expires_at FROM blocks WHERE series_id = ? ORDER BY last_ts DESC LIMIT 1',
    );
    this.blobs = db.prepare('SELECT timestamps, "values", expiries FROM blocks WHERE id = ?');
    this.insert = db.prepare(
      'INSERT INTO blocks (series_id, first_ts, last_ts, count, timestamps, "values", expiries, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.remove = db.prepare('DELETE FROM blocks WHERE id = ?');
  }

  /** The blocks holding points of [start, end] not all expired at `now`, from the index alone. */
  private metasIn(seriesId: number, start: number, end: number, now: number): BlockMeta[] {
    const metas = this.metasEndingIn.all(seriesId, start, end) as BlockMeta[];
    const straddling = this.metaEndingAfter.get(seriesId, end) as BlockMeta | undefined;
    if (straddling !== undefined && straddling.first_ts <= end) metas.push(straddling);
    return metas.filter((m) => isLive(m, now));
  }

  /**
   * The points of the blocks a read of [start, end] at `now` decodes (the covering index answers; no blob is read):
   * blocks whose points have all expired are left out, expired points of the others are counted (they are read).
   */
  countIn(seriesId: number, start: number, end: number, now: number): number {
    let total = 0;
    for (const m of this.metasIn(seriesId, start, end, now)) total += m.count;
    return total;
  }

  /** The sealed points of a series in [start, end], expired ones included (with their expiries) unless their whole block expired. */
  read(seriesId: number, start: number, end: number, now: number): Run {
    const metas = this.metasIn(seriesId, start, end, now);
    let total = 0;
    for (const m of metas) total += m.count;
    const timestamps = new Float64Array(total);
    const values = new Float64Array(total);
    let expiries: Float64Array | undefined;
    let n = 0;
    for (const m of metas) {
      const blob = this.blobs.get(m.id) as BlockBlobs;
      // Timestamps decode in order; stop at the first one past the range.
      const decoded = decodeTimestamps(m.first_ts, m.count, blob.timestamps, timestamps, n, end);
      const from = m.first_ts < start ? firstAtOrAfter(timestamps, start, n, n + decoded) : n;
      const to = n + decoded;
      if (blob.expiries !== null) {
        expiries ??= new Float64Array(total).fill(Infinity);
        expiries.set(decodeExpiries(timestamps.subarray(n, to), blob.expiries).subarray(from - n), n);
      }
      if (from > n) timestamps.copyWithin(n, from, to);
      copyValues(blob.values, from - n, to - n, values, n);
      n += to - from;
    }
    const run = { timestamps: timestamps.subarray(0, n), values: values.subarray(0, n) };
    return expiries === undefined ? run : { ...run, expiries: expiries.subarray(0, n) };
  }

  /**
   * Seals `head` (sorted, unique, written after every sealed point) into the series' blocks, its values winning
   * over sealed ones at equal timestamps. Each head point goes to the first block that ends at or after it; points
   * after the last block fill that block up to `blockPoints`, then start new ones. Blocks that get points are
   * rewritten, neighbours that both get points together: appends rewrite only the newest, partly filled block,
   * while a very late point rewrites the one old block that covers its time. Points expired at `now` are left out
   * of the blocks rewritten (the cleanup drops whole blocks; a rewrite is a chance to drop single points).
   */
  seal(seriesId: number, head: Run, now: number): void {
    const ts = head.timestamps;
    if (ts.length === 0) return;
    // The blocks a head point can go to: those ending within the head's span, and the next one.
    const metas = this.metasEndingIn.all(seriesId, ts[0], ts[ts.length - 1]) as BlockMeta[];
    const next = this.metaEndingAfter.get(seriesId, ts[ts.length - 1]) as BlockMeta | undefined;
    if (next !== undefined) {
      metas.push(next);
    } else if (metas.length === 0) {
      const newest = this.lastMeta.get(seriesId) as BlockMeta | undefined;
      if (newest !== undefined) metas.push(newest);
    }
    // Without a next block, metas ends with the series' newest block, which the points after it fill up.
    const endsSeries = next === undefined;
    // assigned[b] = [from, to): the head points that go into metas[b]; the rest (the tail) goes after them.
    const assigned: [number, number][] = [];
    let i = 0;
    for (const m of metas) {
      const from = i;
      while (i < ts.length && ts[i] <= m.last_ts) i++;
      assigned.push([from, i]);
    }
    const lastIndex = metas.length - 1;
    if (i < ts.length && endsSeries && lastIndex >= 0 && metas[lastIndex].count < this.blockPoints) {
      assigned[lastIndex][1] = ts.length;
      i = ts.length;
    }
    for (let b = 0; b < metas.length; b++) {
      if (assigned[b][0] === assigned[b][1]) continue;
      let e = b;
      while (e + 1 < metas.length && assigned[e + 1][0] < assigned[e + 1][1]) e++;
      const sealed = concatRuns(metas.slice(b, e + 1).map((m) => this.load(m)));
      const newer = slice(head, assigned[b][0], assigned[e][1]);
      for (const m of metas.slice(b, e + 1)) this.remove.run(m.id);
      const newest = endsSeries && e === lastIndex;
      this.write(seriesId, dropExpired(mergePreferringNewer(sealed, newer), now), newest ? fillChunks : evenChunks);
      b = e;
    }
    if (i < ts.length) this.write(seriesId, dropExpired(slice(head, i, ts.length), now), fillChunks);
  }

  private load(m: BlockMeta): Run {
    const blob = this.blobs.get(m.id) as BlockBlobs;
    return decodeRun(m.first_ts, m.count, blob.timestamps, blob.values, blob.expiries);
  }

  private write(seriesId: number, run: Run, chunk: (n: number, size: number) => number[]): void {
    if (run.timestamps.length === 0) return;
    const bounds = chunk(run.timestamps.length, this.blockPoints);
    for (let k = 1; k < bounds.length; k++) {
      const e = encodeRun(slice(run, bounds[k - 1], bounds[k]));
      this.insert.run(seriesId, e.firstTs, e.lastTs, e.count, e.timestamps, e.values, e.expiries, e.expiresAt);
    }
  }
}

const slice = (run: Run, from: number, to: number): Run => {
  const part = { timestamps: run.timestamps.subarray(from, to), values: run.values.subarray(from, to) };
  return run.expiries === undefined ? part : { ...part, expiries: run.expiries.subarray(from, to) };
};

/** Full blocks, the remainder last: the newest block keeps room for the next appends. */
function fillChunks(n: number, size: number): number[] {
  const bounds = [0];
  for (let at = size; at < n; at += size) bounds.push(at);
  bounds.push(n);
  return bounds;
}

/** Equal blocks: a rewrite in the middle of a series leaves no sliver block behind. */
function evenChunks(n: number, size: number): number[] {
  const k = Math.ceil(n / size);
  return Array.from({ length: k + 1 }, (_, j) => Math.round((j * n) / k));
}
