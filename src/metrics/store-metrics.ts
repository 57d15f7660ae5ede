import { ShadowCommit, ShadowStore } from '../shadows/port';
import { PointWriter } from '../timeseries/port';
import { ServiceMetrics } from './service-metrics';

/**
 * Counts committed shadow writes at the store, where every transport's writes meet (REST, MQTT shadow topics).
 * A lost compare-and-set stores nothing and is retried by the service, so it is not counted.
 */
export function observeShadowWrites<T extends ShadowStore>(store: T, metrics: Pick<ServiceMetrics, 'shadowWrites'>): T {
  const count = (commit: ShadowCommit) => metrics.shadowWrites.inc({ applied: String(commit.shadow !== undefined) });
  const stage = store.stageShadowWrite?.bind(store);
  return {
    ...store,
    async commitShadowWrite(commit) {
      const committed = await store.commitShadowWrite(commit);
      if (committed) count(commit);
      return committed;
    },
    ...(stage && {
      async stageShadowWrite(commit: ShadowCommit) {
        const staged = await stage(commit);
        if (staged.committed) staged.durable.then(() => count(commit), () => undefined);
        return staged;
      },
    }),
  };
}

/** Counts points once the time-series store has taken them (a writePoints call is all or nothing). */
export function observePointWriter(writer: PointWriter, metrics: Pick<ServiceMetrics, 'pointsWritten'>): PointWriter {
  return {
    async writePoints(points) {
      await writer.writePoints(points);
      metrics.pointsWritten.inc(points.length);
    },
  };
}
