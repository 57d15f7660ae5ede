import type { Logger } from 'pino';
import { HistoryEraser, PointRange } from '../../timeseries/port';
import { failureOf, KairosDbClient } from './kairosdb-client';
import { rangesCover, WriteHold } from './kairosdb-write-hold';

/**
 * Deleting history in KairosDB (reference §8): `POST /api/v1/datapoints/delete` with a query body (one per distinct
 * range, since 1.2.1 ignores per-metric ranges, like queries in kairosdb-query-body.ts) and `DELETE /api/v1/metric/{name}`.
 * Both answer 204; KairosDB deletes rows wholly inside the range and the points of the others at once, so a query
 * right after no longer sees them (checked against 1.2.1). Points KairosDB acknowledged less than about a second
 * before may still wait in its ingest queue (infra/README.md) and would survive the delete, and points the writer
 * still holds would come back if KairosDB restarted (kairosdb-write-hold.ts): so a delete first waits until the held
 * points it covers have been held their full time, which puts them in Cassandra and out of the hold.
 */
export function createKairosDbEraser(client: KairosDbClient, logger: Logger, hold?: Pick<WriteHold, 'settle'>): HistoryEraser {
  const expectNoContent = async (request: Promise<{ status: number; data: unknown }>, what: string) => {
    const res = await request;
    if (res.status !== 204 && res.status !== 200) throw failureOf(res, what, logger);
  };
  return {
    async deletePoints(ranges: readonly PointRange[]) {
      await hold?.settle((point) => rangesCover(ranges, point));
      const byRange = new Map<string, PointRange[]>();
      for (const r of ranges) {
        const key = `${r.start}/${r.end}`;
        byRange.set(key, [...(byRange.get(key) ?? []), r]);
      }
      for (const group of byRange.values()) {
        const body = {
          start_absolute: group[0].start,
          end_absolute: group[0].end,
          metrics: group.map((r) => ({ name: r.metric, tags: r.tags })),
        };
        await expectNoContent(client.request('POST', '/datapoints/delete', { data: body }), 'delete');
      }
    },
    async deleteMetric(metric) {
      await hold?.settle((point) => point.metric === metric);
      await expectNoContent(client.request('DELETE', `/metric/${encodeURIComponent(metric)}`), 'metric delete');
    },
  };
}
