import type { Logger } from 'pino';
import { createKairosDbTimeSeries } from '../adapters/kairosdb/kairosdb-timeseries';
import { createSqliteTimeSeriesStore, DEFAULT_TIMESERIES_LAYOUT } from '../adapters/sqlite-timeseries/sqlite-timeseries-store';
import { Config } from '../config/config';
import { ReadinessCheck } from '../health/port';
import { createEmbeddedQueries } from '../timeseries/embedded-queries';
import { HistoryEraser, PointWriter, TimeSeriesQueries } from '../timeseries/port';
import { ScriptSandbox } from '../timeseries/query';

/** Where points go and queries run, as TIMESERIES chose (docs/data-store.md "Production backends: KairosDB"). */
export interface TimeSeriesBackend {
  readonly writer: PointWriter;
  /** The query side; save_as writes with `writer` (the service's wrapped one), js_* scripts run in `sandbox`. */
  queries(deps: { writer: PointWriter; sandbox: ScriptSandbox }): TimeSeriesQueries;
  /** Deleting history (POST /datapoints/delete, DELETE /metric). */
  readonly eraser: HistoryEraser;
  readonly readiness: ReadinessCheck;
  /** Idempotent. */
  close(): void;
}

export function openTimeSeriesBackend(config: Config, logger: Logger): TimeSeriesBackend {
  if (config.timeseries.kind === 'kairosdb') {
    const { url, timeoutMs, writeHoldMs } = config.timeseries;
    return createKairosDbTimeSeries({ url, timeoutMs, writeHoldMs, logger: logger.child({ backend: 'kairosdb' }) });
  }
  // POINT_CLEANUP_INTERVAL_MS: the space of expired points is reclaimed this often (docs/data-store.md "Retention").
  const store = createSqliteTimeSeriesStore(config.dataDir, DEFAULT_TIMESERIES_LAYOUT, {
    cleanupEveryMs: config.retention.cleanupEveryMs,
    onCleanup: (result) => {
      if (result instanceof Error) logger.warn({ err: result }, 'time-series cleanup failed; it runs again next period');
      else if (result.blocksDropped + result.headsSealed > 0) logger.info(result, 'expired points reclaimed');
    },
  });
  return {
    writer: store.writer,
    eraser: store.eraser,
    queries: ({ writer, sandbox }) => createEmbeddedQueries({ source: store.source, writer, sandbox }),
    readiness: store.readiness,
    close: () => store.close(),
  };
}
