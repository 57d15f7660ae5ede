import type { HttpLoadRun } from './http-load';
import type { BrokerFigures } from './mqtt-brokers';
import type { CommitRun } from './sqlite-commit';

const LABEL_WIDTH = 34;

const ratio = (value: number, baseline: number) =>
  Number.isFinite(value / baseline) ? `${(value / baseline).toFixed(2).padStart(6)}x koa` : 'n/a'.padStart(10);

const rate = (perSecond: number, unit: string) => `${Math.round(perSecond).toString().padStart(7)} ${unit}`;

const ms = (value: number) => `${value.toFixed(2).padStart(6)} ms`;

/** `rest publish   6083 req/s   0.34x koa   p50   1.35 ms   3.39x koa   p99   3.51 ms   2.01x koa` */
export function httpRow(label: string, run: HttpLoadRun, baseline: HttpLoadRun): string {
  return [
    label.padEnd(LABEL_WIDTH),
    `${rate(run.requestsPerSecond, 'req/s')}  ${ratio(run.requestsPerSecond, baseline.requestsPerSecond)}`,
    `p50 ${ms(run.p50Ms)}  ${ratio(run.p50Ms, baseline.p50Ms)}`,
    `p99 ${ms(run.p99Ms)}  ${ratio(run.p99Ms, baseline.p99Ms)}`,
  ].join('   ');
}

/** Bare SQLite commits per second: the disk's yardstick for the shadow rows. */
export function commitRow(label: string, run: CommitRun, baseline: HttpLoadRun, how: string): string {
  return [
    label.padEnd(LABEL_WIDTH),
    `${rate(run.commitsPerSecond, 'op/s ')}  ${ratio(run.commitsPerSecond, baseline.requestsPerSecond)}`,
    `(${run.commits} commits in ${run.seconds.toFixed(2)} s, ${how}; no HTTP)`,
  ].join('   ');
}

/** Points per second beside the same-run bare store and Koa's requests per second. */
export function ingestRow(label: string, pointsPerSecond: number, barePointsPerSecond: number, detail: string): string {
  return [
    label.padEnd(LABEL_WIDTH),
    `${rate(pointsPerSecond, 'pt/s ')}  ${(pointsPerSecond / barePointsPerSecond).toFixed(2).padStart(6)}x bare store`,
    `(${detail})`,
  ].join('   ');
}

export interface QueryTiming {
  medianMs: number;
  runs: number;
  /** KairosDB's sample_size: the points read after the per-row limit, before aggregation. */
  sampleSize: number;
  /** Values in the answer's results. */
  values: number;
  /** Of the answer as JSON. */
  bytes: number;
  /** The engine path's JSON.stringify of its answer, outside its medianMs; the HTTP path pays it inside. */
  stringifyMs?: number;
}

const scanned = (t: QueryTiming) => t.sampleSize / (t.medianMs / 1000);

/**
 * `query 10M  avg 1 min   812.3 ms  12312000 pt/s   engine 450.1 ms  22222222 pt/s   HTTP 1.80x engine   (...)`:
 * points scanned per second is sample_size over the median time, as the issue asks.
 */
export function queryRow(label: string, http: QueryTiming, engine: QueryTiming): string {
  const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;
  return [
    label.padEnd(LABEL_WIDTH),
    `${ms(http.medianMs).padStart(10)}  ${rate(scanned(http), 'pt/s')}`,
    `engine ${ms(engine.medianMs).padStart(10)}  ${rate(scanned(engine), 'pt/s')}`,
    `HTTP ${(http.medianMs / engine.medianMs).toFixed(2).padStart(5)}x engine`,
    `(sample_size ${http.sampleSize}, ${http.values} values, ${kib(http.bytes)} JSON` +
      `${engine.stringifyMs !== undefined ? ` stringified in ${engine.stringifyMs.toFixed(1)} ms` : ''}; ` +
      `median of ${http.runs} HTTP, ${engine.runs} engine runs)`,
  ].join('   ');
}

/** `target ingest >= 100000 pt/s: 152000 pt/s, met` */
export function targetNote(what: string, target: number, unit: string, measured: number): string {
  return `target ${what} >= ${target} ${unit}: ${Math.round(measured)} ${unit}, ${measured >= target ? 'met' : 'MISSED'}`;
}

/** The figures of each broker measured in this run, keyed by name ('openpie', 'bare aedes', 'mosquitto'). */
export type BrokerResults = Record<string, BrokerFigures>;

/** `mqtt fan-out ... openpie    95000 msg/s   0.85x aedes`: one row per broker and workload, ratios against bare aedes. */
export function brokerRows(results: BrokerResults): string[] {
  const aedes = results['bare aedes'];
  const vsAedes = (value: number | undefined, base: number | undefined) =>
    value !== undefined && base !== undefined ? `${(value / base).toFixed(2).padStart(6)}x aedes` : ''.padStart(12);
  const rows: string[] = [];
  for (const [name, f] of Object.entries(results)) {
    if (f.fanoutDeliveriesPerSecond !== undefined) {
      rows.push([`mqtt fan-out 1->20 QoS 0 ${name}`.padEnd(LABEL_WIDTH), `${rate(f.fanoutDeliveriesPerSecond, 'msg/s')}  ${vsAedes(f.fanoutDeliveriesPerSecond, aedes?.fanoutDeliveriesPerSecond)}`].join('   '));
    }
  }
  for (const [name, f] of Object.entries(results)) {
    if (f.pairs !== undefined) {
      rows.push([
        `mqtt QoS 1, 50 pairs    ${name}`.padEnd(LABEL_WIDTH),
        `${rate(f.pairs.messagesPerSecond, 'msg/s')}  ${vsAedes(f.pairs.messagesPerSecond, aedes?.pairs?.messagesPerSecond)}`,
        `p50 ${ms(f.pairs.p50Ms)}   p99 ${ms(f.pairs.p99Ms)}`,
      ].join('   '));
    }
  }
  for (const [name, f] of Object.entries(results)) {
    if (f.connectsPerSecond !== undefined) {
      rows.push([`mqtt connects, auth     ${name}`.padEnd(LABEL_WIDTH), `${rate(f.connectsPerSecond, 'con/s')}  ${vsAedes(f.connectsPerSecond, aedes?.connectsPerSecond)}`].join('   '));
    }
  }
  return rows;
}

/** `target ... >= 0.80x aedes: 0.85x, met` for a ratio target. */
export function ratioTargetNote(what: string, target: number, against: string, value: number | undefined, base: number | undefined): string {
  if (value === undefined || base === undefined) return `target ${what} >= ${target.toFixed(2)}x ${against}: not measured`;
  const r = value / base;
  return `target ${what} >= ${target.toFixed(2)}x ${against}: ${r.toFixed(3)}x, ${r >= target ? 'met' : 'MISSED'}`;
}

/** `target ... <= 20 ms: 12.3 ms, met` for a bound (latency). */
export function boundNote(what: string, bound: number, unit: string, measured: number | undefined): string {
  if (measured === undefined) return `target ${what} <= ${bound} ${unit}: not measured`;
  return `target ${what} <= ${bound.toFixed(1)} ${unit}: ${measured.toFixed(1)} ${unit}, ${measured <= bound ? 'met' : 'MISSED'}`;
}
