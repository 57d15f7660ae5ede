import { expect } from 'chai';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpClient, httpClient } from '../../helpers/http';

/**
 * Issue 10 §5, the load test. The service runs as its own process with its default limits, on loopback. For
 * MEASURE_MS the hostile callers of attacker.ts (a process of their own) push it the ways the report found: the
 * absurd query in 6 parallel loops, endless js_function scripts 6 at a time, unfinished CoAP block-wise uploads of
 * ever new tokens without credentials (2000 blocks a second), and 40 HTTP bodies that trickle in a byte a second.
 * Meanwhile CALM_DEVICES well-behaved devices of another project each read their status, write their shadow and run a
 * small query, pausing PAUSE_MS between rounds (within the per-device rate limit). Every kind of call must keep a
 * p99 under P99_BOUND_MS, and the service's peak resident memory stay under RSS_CEILING_BYTES.
 *
 * Before issue 10, one absurd query held the process for 4-6 s (so the p99 was seconds) and six took 3.8 GB.
 */
const MEASURE_MS = 12_000;
const PAUSE_MS = 100;
/** Each makes about 15 requests a second, within the per-device rate limit (RATE_LIMIT_RPS 20). */
const CALM_DEVICES = 6;
/**
 * On this machine's 2 cores, shared with other work (load averages of 5 to 9 while this was written), the p99s
 * measured under this attack were 25-230 ms and the medians 3-20 ms (fsyncs of the shadow writes and the CPU other
 * processes take included). The code before issue 10 fails it by far: its median status call took 35 s, its peak
 * RSS was 4.3 GB.
 */
const P99_BOUND_MS = 500;
/**
 * Peak RSS of `node --require tsx/cjs src/main.ts` (tsx compiling the sources in-process): about 130 MiB idle, about
 * 200 MiB with both sandbox threads at work.
 */
const RSS_CEILING_BYTES = 400 * 1024 * 1024;

const ROOT = join(__dirname, '../../..');
const ADMIN_TOKEN = 'load-test-admin-token-0123456789';
const QUERY = '/v2/feed/api/v1/datapoints/query';

/** A process of this repository's TypeScript, with its output collected. */
function spawnTs(file: string, env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<void> } {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', file], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (b) => (output += b));
  child.stderr!.on('data', (b) => (output += b));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, output: () => output, exited };
}

async function waitFor(proc: ReturnType<typeof spawnTs>, pattern: RegExp, ms = 30_000): Promise<RegExpMatchArray> {
  const until = Date.now() + ms;
  for (;;) {
    const match = proc.output().match(pattern);
    if (match) return match;
    if (Date.now() > until || proc.child.exitCode !== null) throw new Error(`${pattern} never printed:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stop(proc: ReturnType<typeof spawnTs>): Promise<void> {
  proc.child.kill('SIGTERM');
  await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
}

interface Device {
  deviceid: string;
  auth: string;
}

async function aDevice(admin: HttpClient, projectid: string): Promise<Device> {
  const res = await admin('POST', '/v2/admin/devices', { body: { projectid, groupid: 'g', alias: `d-${randomBytes(3).toString('hex')}` } });
  if (res.status !== 201) throw new Error(`device not created: ${res.status} ${res.text}`);
  return { deviceid: res.body.deviceid, auth: `Device ${res.body.deviceid}:${res.body.token}` };
}

const percentile = (q: number) => (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.max(0, Math.ceil(samples.length * q) - 1)];
const p50 = percentile(0.5);
const p99 = percentile(0.99);

describe('load: one caller cannot stall, starve or exhaust the service (issue 10 §5)', function () {
  this.timeout(90_000);

  let dataDir: string;
  let service: ReturnType<typeof spawnTs>;
  let http: HttpClient;
  let httpPort: number;
  let coapPort: number;
  let calm: Device[];
  let querier: Device;
  let scripter: Device;

  const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${service.child.pid}/status`, 'utf8'))![1]) * 1024;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'openpie-load-'));
    service = spawnTs('src/main.ts', {
      LOG_LEVEL: 'info', HOST: '127.0.0.1', MQTT_HOST: '127.0.0.1', COAP_HOST: '127.0.0.1',
      PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN,
    });
    const ports = await waitFor(service, /"httpPort":(\d+),"mqttPort":\d+,"coapPort":(\d+)/);
    [httpPort, coapPort] = [Number(ports[1]), Number(ports[2])];
    http = httpClient(`http://127.0.0.1:${httpPort}`);
    const admin = httpClient(`http://127.0.0.1:${httpPort}`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    calm = [];
    for (let i = 0; i < CALM_DEVICES; i++) calm.push(await aDevice(admin, 'calm'));
    [querier, scripter] = [await aDevice(admin, 'hostile-a'), await aDevice(admin, 'hostile-b')];
    for (const device of [...calm, querier, scripter]) {
      const batch = Array.from({ length: 100 }, (_, i) => ({ ts: -(i + 1) * 30_000, data: { temp: 20 + (i % 5) } }));
      const res = await http('PUT', '/v2/device/shadow/batch', { headers: { authorization: device.auth }, body: { batch } });
      expect(res.status, res.text).to.equal(200);
    }
  });
  after(async () => {
    if (service !== undefined) await stop(service);
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it(`keeps well-behaved devices under ${P99_BOUND_MS} ms at p99 and the service under ${RSS_CEILING_BYTES / 2 ** 20} MiB`, async () => {
    const attacker = spawnTs('test/integration/load/attacker.ts', {
      ATTACK: JSON.stringify({ httpPort, coapPort, querier, scripter }),
    });
    // Real attackers send from machines of their own: here the attacker's own CPU comes last, so that what is
    // measured is how the service shares its time, not how the load generator takes it from a 2-core machine.
    setPriority(attacker.child.pid!, 19);
    const latencies = { status: [] as number[], shadowWrite: [] as number[], smallQuery: [] as number[] };
    let hostileStatuses: Record<string, number>;
    try {
      await waitFor(attacker, /attacking/);
      await new Promise((r) => setTimeout(r, 1000));

      const timed = async (into: number[], call: () => Promise<{ status: number; text: string }>) => {
        const started = performance.now();
        const res = await call();
        into.push(performance.now() - started);
        expect(res.status, res.text.slice(0, 200)).to.equal(200);
      };
      const until = Date.now() + MEASURE_MS;
      await Promise.all(calm.map(async (device) => {
        const headers = { authorization: device.auth };
        const small = {
          start_relative: { value: 1, unit: 'hours' },
          metrics: [{ name: device.deviceid, aggregators: [{ name: 'avg', sampling: { value: 10, unit: 'minutes' } }] }],
        };
        for (let i = 0; Date.now() < until; i++) {
          await timed(latencies.status, () => http('GET', '/v2/device/status', { headers }));
          await timed(latencies.shadowWrite, () => http('PUT', '/v2/device/shadow/data', { headers, body: { data: { temp: i } } }));
          await timed(latencies.smallQuery, () => http('POST', QUERY, { headers, body: small }));
          await new Promise((r) => setTimeout(r, PAUSE_MS));
        }
      }));
    } finally {
      await stop(attacker);
      const last = attacker.output().trim().split('\n').at(-1) ?? '';
      hostileStatuses = last.startsWith('{') ? JSON.parse(last) : {};
    }

    const summary = Object.entries(latencies).map(([kind, samples]) => ({
      kind, calls: samples.length, p50: Math.round(p50(samples)), p99: Math.round(p99(samples)), max: Math.round(Math.max(...samples)),
    }));
    const peak = peakRss();
    console.log(`      ${JSON.stringify(summary)}, peak RSS ${Math.round(peak / 2 ** 20)} MiB, hostile answers ${JSON.stringify(hostileStatuses)}`);
    for (const { kind, calls, p99: ms } of summary) {
      expect(calls, kind).to.be.at.least(200);
      expect(ms, `${kind} p99 (ms)`).to.be.below(P99_BOUND_MS);
    }
    expect(peak, 'peak RSS').to.be.below(RSS_CEILING_BYTES);
    // The hostile callers were answered too: refused over budget or by the sandbox's limit, or told to retry.
    expect(Object.keys(hostileStatuses).every((s) => ['400', '413', '429'].includes(s)), JSON.stringify(hostileStatuses)).to.equal(true);
    expect(hostileStatuses['413'], 'absurd queries refused').to.be.above(100);
  });
});
