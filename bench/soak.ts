import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessSample, sampleProcess, slope } from './soak-probe';
import { Recorder, SoakDevice, startSoakLoad } from './soak-load';

/**
 * `npm run soak [-- <duration>]` (issue 26 §6): the service as `npm start` runs it (its own process, SQLite and the
 * embedded engine in a fresh data dir, default limits), under a steady mixed load (soak-load.ts) for the duration
 * (default 30m; `90s`, `20m`, `2h`), printing per window the process' RSS, JavaScript heap, external memory, open
 * fds, event-loop lag p99, disk, and p50/p99 per operation; then the slopes and whether RSS levelled off.
 */
const DURATION_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000 };
/** Windows of the first part of a run are warm-up: caches fill, the JIT settles. Left out of the slopes. */
const WARM_UP_SHARE = 0.2;
/** RSS "levels off" when its slope over the last third is at most this share of the first third's, or below 1 MiB/h. */
const LEVELLED_SHARE = 0.25;

function durationOf(text: string | undefined): number {
  const match = /^(\d+)(s|m|h)$/.exec(text ?? '30m');
  if (!match) throw new Error(`duration "${text}": expected e.g. 90s, 30m, 2h`);
  return Number(match[1]) * DURATION_UNITS[match[2]];
}

const freePort = () => new Promise<number>((resolve, reject) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    server.close(() => resolve(port));
  });
  server.on('error', reject);
});

async function startService(dataDir: string, adminToken: string) {
  const [port, mqttPort] = [await freePort(), await freePort()];
  const log = openSync(join(dataDir, 'service.log'), 'a');
  const child: ChildProcess = spawn(process.execPath, ['dist/src/main.js'], {
    stdio: ['ignore', log, log],
    env: { ...process.env, PORT: String(port), MQTT_PORT: String(mqttPort), COAP_PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn' },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    if ((await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok) break;
    if (tries > 240 || child.exitCode !== null) throw new Error(`the service did not start (see ${dataDir}/service.log)`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { baseUrl, mqttUrl: `mqtt://127.0.0.1:${mqttPort}`, pid: child.pid!, child };
}

async function provision(baseUrl: string, adminToken: string, count: number): Promise<SoakDevice[]> {
  const devices: SoakDevice[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${baseUrl}/v2/admin/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ projectid: 'soak', groupid: 'soak', alias: `soak-${i}` }),
    });
    if (res.status !== 201) throw new Error(`device not created: ${res.status} ${await res.text()}`);
    devices.push(await res.json() as SoakDevice);
  }
  return devices;
}

const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const print = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const durationMs = durationOf(process.argv[2]);
  const windowMs = Math.max(10_000, Math.min(60_000, Math.round(durationMs / 10)));
  const dataDir = mkdtempSync(join(tmpdir(), 'openpie-soak-'));
  const adminToken = `soak-admin-${randomBytes(12).toString('hex')}`;
  const service = await startService(dataDir, adminToken);
  const recorder = new Recorder();
  const samples: { minutes: number; sample: ProcessSample }[] = [];
  try {
    const stopLoad = await startSoakLoad(service.baseUrl, service.mqttUrl, await provision(service.baseUrl, adminToken, 9), recorder);
    print(`soak: ${durationMs / 60_000} min, windows of ${windowMs / 1000} s, service pid ${service.pid}, data ${dataDir}`);
    print('min   rss MiB  heap MiB  ext MiB  fds  lag p99 ms  disk MiB | operation p50/p99 ms (count, errors)');
    const started = Date.now();
    while (Date.now() - started < durationMs) {
      await new Promise((r) => setTimeout(r, windowMs));
      if (service.child.exitCode !== null || service.child.signalCode !== null) {
        throw new Error(`the service exited (${service.child.exitCode ?? service.child.signalCode}); see ${dataDir}/service.log`);
      }
      const minutes = (Date.now() - started) / 60_000;
      const sample = await sampleProcess(service.pid, service.baseUrl, dataDir);
      samples.push({ minutes, sample });
      const ops = [...recorder.take()].sort(([a], [b]) => a.localeCompare(b)).map(([op, s]) => `${op} ${fixed(s.p50)}/${fixed(s.p99)} (${s.count}, ${s.errors})`).join('; ');
      print(`${fixed(minutes).padStart(5)} ${fixed(sample.rssMiB).padStart(8)} ${fixed(sample.heapUsedMiB).padStart(9)} ` +
        `${fixed(sample.externalMiB).padStart(8)} ${String(sample.fds).padStart(4)} ${fixed(sample.eventLoopLagP99Ms).padStart(11)} ` +
        `${fixed(sample.diskMiB).padStart(9)} | ${ops}`);
    }
    await stopLoad();
    summarise(samples, recorder);
  } finally {
    if (service.child.exitCode === null && service.child.signalCode === null) {
      const exited = new Promise((r) => service.child.once('exit', r));
      service.child.kill('SIGTERM');
      await exited;
    }
    if (!process.env.KEEP_SOAK_DATA) rmSync(dataDir, { recursive: true, force: true });
  }
}

function summarise(samples: { minutes: number; sample: ProcessSample }[], recorder: Recorder): void {
  const steady = samples.slice(Math.floor(samples.length * WARM_UP_SHARE));
  const perHour = (pick: (s: ProcessSample) => number, part = steady) =>
    slope(part.map((s) => s.minutes), part.map((s) => pick(s.sample))) * 60;
  const third = Math.max(2, Math.floor(steady.length / 3));
  const [first, last] = [perHour((s) => s.rssMiB, steady.slice(0, third)), perHour((s) => s.rssMiB, steady.slice(-third))];
  const levelled = last <= 1 || last <= LEVELLED_SHARE * first;
  const { totals } = recorder;
  print('');
  print(`slopes after warm-up (per hour): rss ${fixed(perHour((s) => s.rssMiB))} MiB, heap ${fixed(perHour((s) => s.heapUsedMiB))} MiB, ` +
    `external ${fixed(perHour((s) => s.externalMiB))} MiB, fds ${fixed(perHour((s) => s.fds))}, disk ${fixed(perHour((s) => s.diskMiB))} MiB`);
  print(`rss slope first third ${fixed(first)} MiB/h, last third ${fixed(last)} MiB/h: ${levelled ? 'levels off' : 'still growing'}`);
  print(`QoS 1 delivered ${totals.qos1Delivered}/${totals.qos1Sent}; resumed sessions got ${totals.resumeDelivered}/${totals.resumeSent}; errors ${totals.errors}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`soak failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
