import { ReadinessCheck } from '../../health/port';
import { HistoryEraser, PointWriter, TimeSeriesQueries } from '../../timeseries/port';
import { ScriptSandbox } from '../../timeseries/query';
import { createKairosDbClient, KairosDbOptions } from './kairosdb-client';
import { createKairosDbEraser } from './kairosdb-eraser';
import { createKairosDbPointWriter } from './kairosdb-point-writer';
import { createKairosDbQueries } from './kairosdb-queries';
import { kairosDbReadinessCheck } from './kairosdb-readiness';

export interface KairosDbTimeSeries {
  readonly writer: PointWriter;
  /** The query side; `writer` is where a save_as run by the engine writes, `sandbox` runs the js_* aggregators. */
  queries(deps: { writer: PointWriter; sandbox: ScriptSandbox }): TimeSeriesQueries;
  readonly eraser: HistoryEraser;
  readonly readiness: ReadinessCheck;
  /** Idempotent: ends idle connections to KairosDB. */
  close(): void;
}

/** Points and queries in a KairosDB server (TIMESERIES=kairosdb), over one keep-alive HTTP client. */
export function createKairosDbTimeSeries(options: KairosDbOptions): KairosDbTimeSeries {
  const client = createKairosDbClient(options);
  return {
    writer: createKairosDbPointWriter(client, options.logger),
    queries: ({ writer, sandbox }) => createKairosDbQueries({ client, logger: options.logger, writer, sandbox }),
    eraser: createKairosDbEraser(client, options.logger),
    readiness: kairosDbReadinessCheck(client),
    close: () => client.close(),
  };
}
