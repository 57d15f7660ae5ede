import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MainProcess, startMainProcess } from '../../helpers/main-process';

const ADMIN_TOKEN = 'crash-test-admin-token-0123456789';

async function listening(run: MainProcess): Promise<string> {
  const [, port] = await run.waitFor(/"httpPort":(\d+)/, 30_000);
  return `http://127.0.0.1:${port}`;
}

const start = (dataDir: string) =>
  startMainProcess({ DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', ADMIN_TOKEN, RATE_LIMIT_RPS: '0' });

/**
 * Shadow writes are committed in groups and answered once their group is on disk (src/adapters/sqlite/
 * sqlite-shadow-store.ts): a process killed without warning right after the answers keeps every answered write.
 */
describe('a service process killed with SIGKILL', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'openpie-crash-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every shadow write it answered, from writers of one device and of several', async () => {
    const first = start(dataDir);
    const base = await listening(first);
    const devices: { deviceid: string; token: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${base}/v2/admin/devices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ projectid: 'p', groupid: 'g', alias: `d${i}` }),
      });
      devices.push((await res.json()) as { deviceid: string; token: string });
    }
    const answered = new Map<string, Set<string>>(devices.map((d) => [d.deviceid, new Set()]));
    let total = 0;
    let killed = false;
    const write = async (d: { deviceid: string; token: string }, field: string) => {
      const res = await fetch(`${base}/v2/device/shadow/data`, {
        method: 'PUT',
        headers: { authorization: `Device ${d.deviceid}:${d.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ data: { [field]: 1 } }),
      });
      if (res.status !== 200 || killed) return;
      answered.get(d.deviceid)!.add(field);
      // Killed as the 200th answer comes in, with the other writers' requests in flight.
      if (++total === 200) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    };

    // 8 writers on the first device (their writes folded together), one on each of the others.
    const writers = [...Array.from({ length: 8 }, () => devices[0]), ...devices.slice(1)];
    await Promise.all(writers.map(async (d, w) => {
      for (let k = 0; !killed; k++) await write(d, `w${w}k${k}`).catch(() => undefined);
    }));
    await first.exited;

    const second = start(dataDir);
    try {
      const again = await listening(second);
      for (const d of devices) {
        const res = await fetch(`${again}/v2/device/shadow/data`, { headers: { authorization: `Device ${d.deviceid}:${d.token}` } });
        const shadow = (await res.json()) as { data: Record<string, number>; rev: number };
        const fields = answered.get(d.deviceid)!;
        expect(fields.size).to.be.greaterThan(0);
        for (const field of fields) expect(shadow.data, `${d.deviceid} ${field}`).to.have.property(field);
        expect(shadow.rev).to.be.at.least(fields.size);
      }
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
