import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What one look at the service process tells, from outside (/proc, its data dir) and from its /metrics. */
export interface ProcessSample {
  rssMiB: number;
  heapUsedMiB: number;
  /** Node's external memory: Buffers and ArrayBuffers outside the JavaScript heap. */
  externalMiB: number;
  fds: number;
  eventLoopLagP99Ms: number;
  diskMiB: number;
}

const MiB = 2 ** 20;

function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

function bytesUnder(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    try {
      bytes += entry.isDirectory() ? bytesUnder(path) : statSync(path).blocks * 512;
    } catch {
      // A file removed between the listing and the stat (a WAL checkpoint) holds nothing any more.
    }
  }
  return bytes;
}

/** One gauge of Prometheus' text format, NaN when absent. */
function gauge(metrics: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(metrics);
  return match ? Number(match[1]) : NaN;
}

export async function sampleProcess(pid: number, baseUrl: string, dataDir: string): Promise<ProcessSample> {
  const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
  return {
    rssMiB: rssOf(pid),
    heapUsedMiB: gauge(metrics, 'nodejs_heap_size_used_bytes') / MiB,
    externalMiB: gauge(metrics, 'nodejs_external_memory_bytes') / MiB,
    fds: readdirSync(`/proc/${pid}/fd`).length,
    eventLoopLagP99Ms: gauge(metrics, 'nodejs_eventloop_lag_p99_seconds') * 1000,
    diskMiB: bytesUnder(dataDir) / MiB,
  };
}

/** Least-squares slope of `ys` over `xs`, per unit of x. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}
