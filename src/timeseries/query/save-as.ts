import { Point } from '../point';
import { PointWriter } from '../port';
import { queryError } from './kairos-query-error';
import { kindAt, NUMBER, PointStream } from './point-stream';
import { AggregatorSpec } from './query-model';

type SaveAsSpec = Extract<AggregatorSpec, { name: 'save_as' }>;

const SAVED_FROM = 'saved_from';

/**
 * save_as (reference §6.2): the stream passes through unchanged, and each point is also written to `metric_name`
 * with tags = the `tags` parameter, plus `saved_from=<source metric>` (unless add_saved_from is false), plus every
 * tag of the query's tag groupers that has exactly one value in the group (SaveAsAggregator; the docs' "every
 * single-valued tag" is not what the code does). Null, array and non-finite points cannot be stored and are
 * skipped; `ttl` has no meaning in the embedded store.
 */
export async function saveAs(
  s: PointStream,
  spec: SaveAsSpec,
  source: { metric: string; tags: ReadonlyMap<string, readonly string[]> },
  writer: PointWriter,
): Promise<PointStream> {
  const tags = new Map<string, string>();
  for (const [name, value] of Object.entries(spec.tags)) if (name !== SAVED_FROM || !spec.addSavedFrom) tags.set(name, value);
  if (spec.addSavedFrom) tags.set(SAVED_FROM, source.metric);
  for (const [name, values] of source.tags) {
    if ((name !== SAVED_FROM || !spec.addSavedFrom) && spec.tagsToKeep.includes(name) && values.length === 1) tags.set(name, values[0]);
  }
  if (tags.size === 0) throw queryError(`save_as to ${spec.metricName} has no tag to write: give tags or keep add_saved_from`);
  const pointTags = Object.fromEntries(tags);
  const points: Point[] = [];
  for (let i = 0; i < s.ts.length; i++) {
    if (kindAt(s, i) === NUMBER && Number.isFinite(s.vals[i])) {
      points.push({ metric: spec.metricName, tags: pointTags, timestamp: s.ts[i], value: s.vals[i] });
    }
  }
  if (points.length > 0) await writer.writePoints(points);
  return s;
}
