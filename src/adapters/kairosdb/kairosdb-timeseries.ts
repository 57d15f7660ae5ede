import { ReadinessCheck } from '../../health/port';
import { HistoryEraser, PointWriter, TimeSeriesQueries } from '../../timeseries/port';
import { ScriptSandbox } from '../../timeseries/query';
import { createKairosDbClient, KairosDbOptions } from './kairosdb-client';
import { createKairosDbEraser } from './kairosdb-eraser';
import { createKairosDbPointWriter, pointPoster } from './kairosdb-point-writer';
import { createKairosDbQueries } from './kairosdb-queries';
import { kairosDbReadinessCheck } from './kairosdb-readiness';
import { createWriteHold, DEFAULT_WRITE_HOLD_MS } from './kairosdb-write-hold';

export interface KairosDbTimeSeries {
  readonly writer: PointWriter;
  /** The query side; `writer` is where a save_as run by the engine writes, `sandbox` runs the js_* aggregators. */
  queries(deps: { writer: PointWriter; sandbox: ScriptSandbox }): TimeSeriesQueries;
  readonly eraser: HistoryEraser;
  readonly readiness: ReadinessCheck;
  /** Idempotent: ends idle connections to KairosDB. */
  close(): void;
}

/**
 * Points and queries in a KairosDB server (TIMESERIES=kairosdb), over one keep-alive HTTP client. The writer holds what
 * KairosDB acknowledged for `writeHoldMs` (KAIROSDB_WRITE_HOLD_MS), and the eraser waits for it (kairosdb-write-hold.ts).
 */
export function createKairosDbTimeSeries(options: KairosDbOptions & { readonly writeHoldMs?: number }): KairosDbTimeSeries {
  const { logger, timeoutMs, writeHoldMs = DEFAULT_WRITE_HOLD_MS } = options;
  const client = createKairosDbClient(options);
  const hold = createWriteHold({ client, logger, holdMs: writeHoldMs, timeoutMs, replay: pointPoster(client, logger) });
  return {
    writer: createKairosDbPointWriter(client, logger, hold),
    queries: ({ writer, sandbox }) => createKairosDbQueries({ client, logger, writer, sandbox }),
    eraser: createKairosDbEraser(client, logger, hold),
    readiness: kairosDbReadinessCheck(client),
    close: () => {
      hold.close();
      client.close();
    },
  };
}
