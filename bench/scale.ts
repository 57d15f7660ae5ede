import { ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteDatabase } from '../src/adapters/sqlite/sqlite-database';
import { createSqliteDeviceStore } from '../src/adapters/sqlite/sqlite-device-store';
import { loadCredentialKey } from '../src/devices/credential-key';
import { generateKey } from '../src/devices/credentials';
import type { ScaleClientJob, ScaleClientReport } from './scale-client';

/**
 * Many idle devices on one service (issue 12 §5): N devices connect at once (CONNECT + SUBSCRIBE, authentication
 * included) from load-generator processes spread over 127.0.0.x source addresses; then one message reaches every one
 * of them (one REST publish per group of GROUP_SIZE devices, all subscribed to `@msg/all`). The service runs in a
 * child process of its own, so its resident memory is its own. Run: `npm run build && node dist/bench/scale.js`
 * (SCALE_DEVICES=10000,20000 to choose the sizes). Each process may hold no more sockets than its file-descriptor
 * limit (`ulimit -n`): sizes above what the service can hold are skipped, and the memory slope of the sizes measured
 * is extrapolated to 50,000.
 */
const GROUP_SIZE = 1_000;
/**
 * Devices per load-generator process and source address. Each socket binds its source address before it connects,
 * and the kernel's search for a free port of one address slows down as they fill: at 10,000 per address the
 * generator, not the broker, took most of a storm's time (the broker idled at 6-27% CPU while the generator ran at
 * 100%). 2,500 per address keeps that search short.
 */
const PER_CLIENT_PROCESS = 2_500;
const CONCURRENCY_PER_PROCESS = 100;
/** Issue 12's bounds, checked below: memory at 50,000 idle devices, and how long the storm and the broadcast may take. */
const BOUNDS = { devices: 50_000, rssMiB: 1024, stormSecondsPer10k: 30, broadcastSeconds: 10 };

const print = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const fileLimit = () => Number(execFileSync('sh', ['-c', 'ulimit -n']).toString().trim());

interface Device {
  deviceid: string;
  token: string;
  groupid: string;
}

/** Writes `count` devices straight into a fresh data dir's registry, in one transaction. */
async function provision(dataDir: string, count: number): Promise<Device[]> {
  const db = openSqliteDatabase(dataDir);
  // The key the service will find in DATA_DIR: the registry keeps digests of the tokens the clients connect with.
  const { key } = loadCredentialKey(join(dataDir, 'credential-key'), { createIfMissing: true });
  const store = createSqliteDeviceStore(db, key);
  const devices: Device[] = [];
  db.exec('BEGIN');
  for (let i = 0; i < count; i++) {
    const device = {
      deviceid: randomUUID(), token: generateKey(), secret: generateKey(), alias: `d${i}`, groupid: `g${Math.floor(i / GROUP_SIZE)}`,
      projectid: 'scale', enabled: true, banned: false, description: '', livenessttl: 0, created: Date.now(),
    };
    await store.insertDevice({ ...device, token: key.digest(device.token), secret: key.digest(device.secret) });
    devices.push(device);
  }
  db.exec('COMMIT');
  db.close();
  return devices;
}

interface Figures {
  devices: number;
  connected: number;
  stormSeconds: number;
  rssIdleMiB: number;
  rssConnectedMiB: number;
  broadcastSeconds: number;
}

async function measure(count: number): Promise<Figures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openpie-scale-'));
  const children: ChildProcess[] = [];
  try {
    print(`scale ${count}: provisioning ...`);
    const devices = await provision(dataDir, count);
    const [port, mqttPort] = [await freePort(), await freePort()];
    const adminToken = `scale-admin-${randomBytes(12).toString('hex')}`;
    const service = spawn(process.execPath, [join(__dirname, '../src/main.js')], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, PORT: String(port), MQTT_PORT: String(mqttPort), COAP_PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, RATE_LIMIT_RPS: '0', LOG_LEVEL: 'error' },
    });
    children.push(service);
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) break;
      if (i > 240) throw new Error('the service did not start');
      await sleep(250);
    }
    await sleep(1000);
    const rssIdleMiB = rssMiB(service.pid!);

    print(`scale ${count}: connect storm ...`);
    const jobs: ScaleClientJob[] = [];
    for (let at = 0, k = 0; at < devices.length; at += PER_CLIENT_PROCESS, k++) {
      jobs.push({ host: '127.0.0.1', port: mqttPort, localAddress: `127.0.0.${2 + k}`, devices: devices.slice(at, at + PER_CLIENT_PROCESS), filter: '@msg/all', concurrency: CONCURRENCY_PER_PROCESS });
    }
    const reports = (kind: ScaleClientReport['kind']) =>
      Promise.all(children.slice(1).map((c) => new Promise<ScaleClientReport>((resolve) => {
        const on = (m: ScaleClientReport) => {
          if (m.kind !== kind) return;
          c.off('message', on);
          resolve(m);
        };
        c.on('message', on);
      })));
    const start = performance.now();
    for (const job of jobs) {
      const client = fork(join(__dirname, 'scale-client.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      children.push(client);
      client.send(job);
    }
    const connected = await reports('connected');
    const stormSeconds = (performance.now() - start) / 1000;
    const sessions = connected.reduce((n, r) => n + r.sessions, 0);
    const failed = connected.find((r) => r.kind === 'connected' && r.failures > 0);
    if (failed && failed.kind === 'connected') print(`scale ${count}: ${failed.failures} sessions failed in one process, first: ${failed.firstFailure}`);
    await sleep(2000);
    const rssConnectedMiB = rssMiB(service.pid!);

    print(`scale ${count}: a message to every device ...`);
    const delivered = reports('delivered');
    children.slice(1).forEach((c) => c.send({ kind: 'expect' }));
    const broadcastStart = performance.now();
    const groups = new Map<string, Device>();
    for (const d of devices) if (!groups.has(d.groupid)) groups.set(d.groupid, d);
    await Promise.all([...groups.values()].map(async (d) => {
      const res = await fetch(`${base}/v2/device/message/all`, { method: 'PUT', headers: { authorization: `Device ${d.deviceid}:${d.token}`, 'content-type': 'text/plain' }, body: 'hello' });
      if (res.status !== 200) throw new Error(`broadcast to ${d.groupid}: ${res.status} ${await res.text()}`);
    }));
    const timeout = sleep(60_000).then(() => undefined);
    const done = await Promise.race([delivered, timeout]);
    const broadcastSeconds = done ? (performance.now() - broadcastStart) / 1000 : NaN;
    return { devices: count, connected: sessions, stormSeconds, rssIdleMiB, rssConnectedMiB, broadcastSeconds };
  } finally {
    for (const c of children.slice(1)) c.send?.({ kind: 'close' });
    await sleep(500);
    for (const c of children.slice(1)) c.kill('SIGKILL');
    // The service stops as `npm start` would (SIGTERM); it is killed if that takes more than 15 s.
    const service = children[0];
    if (service && service.exitCode === null) {
      const exited = new Promise((resolve) => service.once('exit', resolve));
      service.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000)]);
      service.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The same connect storm on bare aedes in a process of its own: the yardstick for memory and connect rate. */
async function measureBareAedes(count: number): Promise<{ connected: number; stormSeconds: number; rssIdleMiB: number; rssConnectedMiB: number }> {
  const port = await freePort();
  const broker = spawn(process.execPath, ['-e', `
    const { Aedes } = require(${JSON.stringify(require.resolve('aedes'))});
    Aedes.createBroker().then((a) => require('net').createServer(a.handle).listen(${port}, '127.0.0.1', () => console.log('up')));
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  const clients: ChildProcess[] = [];
  try {
    await new Promise((resolve) => broker.stdout!.once('data', resolve));
    await sleep(1000);
    const rssIdleMiB = rssMiB(broker.pid!);
    const run = randomBytes(4).toString('hex');
    const devices = Array.from({ length: count }, (_, i) => ({ deviceid: `scale-${run}-${i}`, token: 'none' }));
    const start = performance.now();
    const reports: Promise<ScaleClientReport>[] = [];
    for (let at = 0, k = 0; at < devices.length; at += PER_CLIENT_PROCESS, k++) {
      const client = fork(join(__dirname, 'scale-client.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      clients.push(client);
      reports.push(new Promise((resolve) => client.once('message', resolve)));
      const job: ScaleClientJob = { host: '127.0.0.1', port, localAddress: `127.0.0.${2 + k}`, devices: devices.slice(at, at + PER_CLIENT_PROCESS), filter: 'all', concurrency: CONCURRENCY_PER_PROCESS };
      client.send(job);
    }
    const connected = (await Promise.all(reports)).reduce((n, r) => n + r.sessions, 0);
    const stormSeconds = (performance.now() - start) / 1000;
    await sleep(2000);
    return { connected, stormSeconds, rssIdleMiB, rssConnectedMiB: rssMiB(broker.pid!) };
  } finally {
    for (const c of [...clients, broker]) c.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  const limit = fileLimit();
  // The service holds a descriptor per connection besides its own (files, listeners): leave it some room.
  const ceiling = limit - 1_000;
  const sizes = (process.env.SCALE_DEVICES ?? '5000,10000,18000').split(',').map(Number);
  print(`scale: file-descriptor limit ${limit}, so at most ${ceiling} devices per service process; sizes ${sizes.join(', ')}`);
  const results: Figures[] = [];
  const lines: string[] = [];
  const kib = (r: { rssConnectedMiB: number; rssIdleMiB: number; connected: number }) => (((r.rssConnectedMiB - r.rssIdleMiB) * 1024) / r.connected).toFixed(1);
  for (const size of sizes) {
    if (size > ceiling) {
      print(`scale ${size}: skipped, above the file-descriptor limit (ulimit -n ${limit})`);
      continue;
    }
    const r = await measure(size);
    results.push(r);
    print(`scale ${size}: the same storm on bare aedes ...`);
    const bare = await measureBareAedes(size);
    lines.push(
      `scale ${String(r.devices).padStart(6)} devices   ${r.connected} of ${r.devices} connected in ${r.stormSeconds.toFixed(1)} s (${Math.round(r.connected / r.stormSeconds)}/s)` +
        `   RSS ${r.rssIdleMiB.toFixed(0)} -> ${r.rssConnectedMiB.toFixed(0)} MiB (${kib(r)} KiB per connection)` +
        `   a message to all in ${r.broadcastSeconds.toFixed(2)} s`,
      `  bare aedes        ${bare.connected} of ${size} connected in ${bare.stormSeconds.toFixed(1)} s (${Math.round(bare.connected / bare.stormSeconds)}/s)` +
        `   RSS ${bare.rssIdleMiB.toFixed(0)} -> ${bare.rssConnectedMiB.toFixed(0)} MiB (${kib(bare)} KiB per connection)`,
    );
  }
  print('');
  lines.forEach((line) => print(line));
  if (results.length === 0) return;
  // Least squares over the sizes measured: RSS = a + b * connections.
  const xs = results.map((r) => r.connected);
  const ys = results.map((r) => r.rssConnectedMiB);
  const mx = xs.reduce((s, x) => s + x, 0) / xs.length;
  const my = ys.reduce((s, y) => s + y, 0) / ys.length;
  const slope = xs.length > 1 ? xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0) : (ys[0] - results[0].rssIdleMiB) / xs[0];
  const at50k = xs.length > 1 ? my + slope * (BOUNDS.devices - mx) : results[0].rssIdleMiB + slope * BOUNDS.devices;
  const largest = results[results.length - 1];
  const stormBound = (BOUNDS.stormSecondsPer10k * largest.devices) / 10_000;
  print(`scale memory slope ${(slope * 1024).toFixed(1)} KiB per connection; at ${BOUNDS.devices} idle devices about ${at50k.toFixed(0)} MiB`);
  print(`target RSS at ${BOUNDS.devices} idle devices <= ${BOUNDS.rssMiB} MiB: ${at50k.toFixed(0)} MiB (extrapolated), ${at50k <= BOUNDS.rssMiB ? 'met' : 'MISSED'}`);
  print(`target connect storm of ${largest.devices} <= ${stormBound.toFixed(0)} s (${BOUNDS.stormSecondsPer10k} s per 10,000): ${largest.stormSeconds.toFixed(1)} s, ${largest.stormSeconds <= stormBound ? 'met' : 'MISSED'}`);
  print(`target a message to all ${largest.devices} <= ${BOUNDS.broadcastSeconds} s: ${largest.broadcastSeconds.toFixed(2)} s, ${largest.broadcastSeconds <= BOUNDS.broadcastSeconds ? 'met' : 'MISSED'}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`scale benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
