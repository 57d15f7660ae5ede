import { Point } from '../../timeseries/point';

/**
 * An outbox row (the points of one shadow write) as a compact blob instead of a JSON array of point objects
 * (issue 12): a batch of 100 items x 3 fields was 300 objects with their metric and tags repeated, stringified in
 * the write's transaction and parsed again by the relay. The points are grouped by series, whose metric and tags
 * are written once; timestamps and values are little-endian float64s.
 *
 *   u8  format (1, or 2 when a point has an expiry)
 *   u32 series count
 *   per series: u32 byte length + metric (UTF-8), u32 byte length + tags (JSON), u32 point count,
 *               then that many float64 timestamps, then as many float64 values,
 *               format 2 only: u8 1 then as many float64 expiries (NaN: none), or u8 0 when none of the series has one
 *
 * Rows written before this format are JSON text; `decodeOutboxRow` reads all three. Writes without expiries keep
 * format 1, which a release before retention (issue 23 §2) still reads.
 */
const FORMAT = 1;
const FORMAT_WITH_EXPIRIES = 2;

interface SeriesPoints {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly timestamps: number[];
  readonly values: number[];
  /** NaN where a point has none. */
  readonly expiries: number[];
}

/** The points grouped by series, in the order each series first appears; within a series, in the order given. */
function groupBySeries(points: readonly Point[]): SeriesPoints[] {
  const groups: SeriesPoints[] = [];
  // metric -> tags JSON -> group; a shadow write's points share their metric, and tags are one `attr` each.
  const index = new Map<string, Map<string, SeriesPoints>>();
  // The points of one field usually share their tags object (shadow-points.ts): then one look-up finds the group.
  const byTagsObject = new Map<object, SeriesPoints>();
  for (const p of points) {
    const known = byTagsObject.get(p.tags);
    if (known && known.metric === p.metric) {
      known.timestamps.push(p.timestamp);
      known.values.push(p.value);
      known.expiries.push(p.expiresAt ?? NaN);
      continue;
    }
    let byTags = index.get(p.metric);
    if (!byTags) index.set(p.metric, (byTags = new Map()));
    // Cheaper than JSON per point; tags given in another order only make a second group of the same series.
    let tagsKey = '';
    for (const name in p.tags) tagsKey += `${name}\u0000${p.tags[name]}\u0001`;
    let group = byTags.get(tagsKey);
    if (!group) {
      group = { metric: p.metric, tags: p.tags, timestamps: [], values: [], expiries: [] };
      byTags.set(tagsKey, group);
      groups.push(group);
    }
    byTagsObject.set(p.tags, group);
    group.timestamps.push(p.timestamp);
    group.values.push(p.value);
    group.expiries.push(p.expiresAt ?? NaN);
  }
  return groups;
}

export function encodeOutboxRow(points: readonly Point[]): Buffer {
  const groups = groupBySeries(points);
  const heads = groups.map((g) => ({
    metric: Buffer.from(g.metric, 'utf8'),
    tags: Buffer.from(JSON.stringify(g.tags), 'utf8'),
    expires: g.expiries.some((e) => !Number.isNaN(e)),
  }));
  const withExpiries = heads.some((h) => h.expires);
  let size = 5;
  groups.forEach((g, i) => {
    size += 12 + heads[i].metric.length + heads[i].tags.length + 16 * g.timestamps.length;
    if (withExpiries) size += 1 + (heads[i].expires ? 8 * g.timestamps.length : 0);
  });
  const out = Buffer.allocUnsafe(size);
  let at = out.writeUInt8(withExpiries ? FORMAT_WITH_EXPIRIES : FORMAT, 0);
  at = out.writeUInt32LE(groups.length, at);
  groups.forEach((g, i) => {
    at = out.writeUInt32LE(heads[i].metric.length, at);
    at += heads[i].metric.copy(out, at);
    at = out.writeUInt32LE(heads[i].tags.length, at);
    at += heads[i].tags.copy(out, at);
    at = out.writeUInt32LE(g.timestamps.length, at);
    for (const ts of g.timestamps) at = out.writeDoubleLE(ts, at);
    for (const v of g.values) at = out.writeDoubleLE(v, at);
    if (!withExpiries) return;
    at = out.writeUInt8(heads[i].expires ? 1 : 0, at);
    if (heads[i].expires) for (const e of g.expiries) at = out.writeDoubleLE(e, at);
  });
  return out;
}

/** The points of a row, series by series; the points of one series share one tags object. */
export function decodeOutboxRow(row: Buffer | string): Point[] {
  if (typeof row === 'string') return JSON.parse(row) as Point[];
  const format = row.readUInt8(0);
  if (format !== FORMAT && format !== FORMAT_WITH_EXPIRIES) throw new Error(`outbox row of unknown format ${format}`);
  const points: Point[] = [];
  const seriesCount = row.readUInt32LE(1);
  let at = 5;
  for (let s = 0; s < seriesCount; s++) {
    const metricLength = row.readUInt32LE(at);
    const metric = row.toString('utf8', at + 4, at + 4 + metricLength);
    at += 4 + metricLength;
    const tagsLength = row.readUInt32LE(at);
    const tags = JSON.parse(row.toString('utf8', at + 4, at + 4 + tagsLength)) as Record<string, string>;
    at += 4 + tagsLength;
    const count = row.readUInt32LE(at);
    at += 4;
    const valuesAt = at + 8 * count;
    const expires = format === FORMAT_WITH_EXPIRIES && row.readUInt8(valuesAt + 8 * count) === 1;
    const expiriesAt = valuesAt + 8 * count + 1;
    for (let i = 0; i < count; i++) {
      const point: Point = { metric, tags, timestamp: row.readDoubleLE(at + 8 * i), value: row.readDoubleLE(valuesAt + 8 * i) };
      const expiresAt = expires ? row.readDoubleLE(expiriesAt + 8 * i) : NaN;
      points.push(Number.isNaN(expiresAt) ? point : { ...point, expiresAt });
    }
    at = valuesAt + 8 * count + (format === FORMAT_WITH_EXPIRIES ? 1 + (expires ? 8 * count : 0) : 0);
  }
  return points;
}
