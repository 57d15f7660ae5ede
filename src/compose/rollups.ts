import type { Logger } from 'pino';
import { ChangeFeed } from '../cluster/port';
import { ReadCacheOptions } from '../cluster/read-cache';
import { DeviceStore } from '../devices/port';
import { HistoryEraser, PointWriter, TimeSeriesQueries } from '../timeseries/port';
import { createRollupDeclarations } from '../timeseries/rollups/declarations';
import { DirtyRanges } from '../timeseries/rollups/dirty-ranges';
import { createRollupMaintainer } from '../timeseries/rollups/maintainer';
import { RollupStore } from '../timeseries/rollups/port';
import { createRollupQueries } from '../timeseries/rollups/rollup-queries';
import { createRollupService } from '../timeseries/rollups/service';

export interface RollupsDeps {
  store: RollupStore;
  changes: ChangeFeed;
  cache: ReadCacheOptions;
  devices: Pick<DeviceStore, 'getDevice' | 'listDevices'>;
  /** What the service's writer marked (trackWrites). */
  dirty: DirtyRanges;
  /** The engine's query side, and its own writer and eraser: tier points are neither counted nor marked. */
  queries: TimeSeriesQueries;
  writer: PointWriter;
  eraser: HistoryEraser;
  /** The embedded engine (it reports keys_scanned) rather than KairosDB. */
  embedded: boolean;
  logger: Logger;
  now: () => number;
}

/** Roll-ups (issue 23 §3, docs/data-store.md "Roll-ups"): declarations, the job that keeps tiers, answers from them. */
export function composeRollups(deps: RollupsDeps) {
  const { queries, now } = deps;
  const declarations = createRollupDeclarations({ store: deps.store, changes: deps.changes, cache: deps.cache });
  const maintainer = createRollupMaintainer({
    dirty: deps.dirty,
    engine: { queries, writer: deps.writer, eraser: deps.eraser, now },
    declarations,
    devices: deps.devices,
    logger: deps.logger.child({ job: 'rollups' }),
    now,
  });
  return {
    maintainer,
    queries: createRollupQueries({ maintainer, queries, keysScanned: deps.embedded, now }),
    service: createRollupService(declarations, maintainer),
  };
}
