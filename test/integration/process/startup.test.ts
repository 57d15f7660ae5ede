import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { MainProcess, startMainProcess } from '../../helpers/main-process';

type Run = MainProcess;

const startMain = (env: Record<string, string>): Run => startMainProcess({ COAP_PORT: '0', ...env });

async function waitFor(run: Run, text: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!run.output().includes(text)) {
    if (Date.now() > until) throw new Error(`"${text}" never printed; output:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('starting and stopping the service process', () => {
  let dataDir: string;
  let blocker: Server | undefined;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'openpie-proc-'));
  });
  afterEach(() => {
    blocker?.close();
    blocker = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('makes an admin token on first start, keeps it in DATA_DIR and prints it only once', async () => {
    const first = startMain({ DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0' });
    await waitFor(first, 'openpie listening');
    first.child.kill('SIGTERM');
    expect(await first.exited).to.equal(0);
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    expect(first.output()).to.contain(token);
    expect(statSync(join(dataDir, 'admin-token')).mode & 0o077).to.equal(0);

    const second = startMain({ DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0' });
    await waitFor(second, 'openpie listening');
    second.child.kill('SIGINT');
    expect(await second.exited).to.equal(0);
    expect(second.output()).to.not.contain(token);
  });

  it('prints where to go once listening: the front door, console, explorer, OpenAPI document, docs and MQTT', async () => {
    const run = startMain({ DATA_DIR: dataDir, PORT: '0', MQTT_PORT: '0', ADMIN_TOKEN: 'a-long-enough-admin-token-of-40-chars-xy' });
    try {
      await waitFor(run, 'MQTT:');
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).to.equal(0);

    const port = /http:\/\/127\.0\.0\.1:(\d+)\/console/.exec(run.output())?.[1];
    expect(port, run.output()).to.be.a('string');
    for (const url of ['/', '/console', '/trial', '/openapi.json', '/docs/']) {
      expect(run.output()).to.contain(`http://127.0.0.1:${port}${url}`);
    }
    expect(run.output()).to.match(/MQTT:\s+mqtt:\/\/127\.0\.0\.1:\d+/);
    expect(run.output()).to.contain('the ADMIN_TOKEN you set');
  });

  it('says in one line which port is taken, without a stack trace', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const run = startMain({ DATA_DIR: dataDir, PORT: String(port), MQTT_PORT: '0', ADMIN_TOKEN: 'a-long-enough-admin-token-of-40-chars-xy' });
    expect(await run.exited).to.equal(1);
    expect(run.output().trim()).to.equal(
      `openpie: HTTP (PORT) port ${port} on 127.0.0.1 is already in use: set PORT to another port (0 picks a free one)`,
    );
  });

  it('refuses a bad configuration with a readable message', async () => {
    const run = startMain({ DATA_DIR: dataDir, PORT: 'http' });
    expect(await run.exited).to.equal(1);
    expect(run.output()).to.match(/invalid configuration:\n\s+PORT: must be a port number/);
    expect(run.output()).to.not.match(/\bat .*\.ts:\d+/);
    expect(existsSync(join(dataDir, 'openpie.db'))).to.equal(false);
  });

  it("refuses the old compose file's placeholder secrets, naming the variables and not the values (issue 21)", async () => {
    const run = startMain({
      DATA_DIR: dataDir,
      PORT: '0',
      MQTT_PORT: '0',
      ADMIN_TOKEN: 'change-me-admin-token-0123456789',
      BACKBONE_URL: 'mqtt://127.0.0.1:1',
      BACKBONE_PASSWORD: 'change-me-backbone-password',
    });
    expect(await run.exited).to.equal(1);
    expect(run.output()).to.match(/invalid configuration:\n\s+ADMIN_TOKEN: starts with "change-me"/);
    expect(run.output()).to.contain('BACKBONE_PASSWORD: starts with "change-me"');
    expect(run.output()).to.not.contain('change-me-admin-token-0123456789');
    expect(existsSync(join(dataDir, 'openpie.db'))).to.equal(false);
  });
});
