import type { HttpLoadRun } from './http-load';
import type { FanoutRun } from './mqtt-fanout';
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

/** Deliveries per second beside the baseline's requests per second: different work, a same-run yardstick only. */
export function fanoutRow(label: string, run: FanoutRun, baseline: HttpLoadRun): string {
  return [
    label.padEnd(LABEL_WIDTH),
    `${rate(run.deliveriesPerSecond, 'msg/s')}  ${ratio(run.deliveriesPerSecond, baseline.requestsPerSecond)}`,
    `(${run.published} published, ${Math.round(run.publishedPerSecond)}/s; ` +
      `${run.deliveries} delivered in ${run.seconds.toFixed(2)} s)`,
  ].join('   ');
}

/** Bare SQLite commits per second: the disk's yardstick for the shadow rows. */
export function commitRow(label: string, run: CommitRun, baseline: HttpLoadRun): string {
  return [
    label.padEnd(LABEL_WIDTH),
    `${rate(run.commitsPerSecond, 'op/s ')}  ${ratio(run.commitsPerSecond, baseline.requestsPerSecond)}`,
    `(${run.commits} commits in ${run.seconds.toFixed(2)} s, opened as the service opens its store; no HTTP)`,
  ].join('   ');
}
