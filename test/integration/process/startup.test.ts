import { expect } from 'chai';
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = join(__dirname, '../../../src/main.ts');

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startMain(env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', MQTT_HOST: '127.0.0.1', COAP_HOST: '127.0.0.1', COAP_PORT: '0', ...env },
  });
  let output = '';
  child.stdout!.on('data', (b) => (output += b));
  child.stderr!.on('data', (b) => (output += b));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

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

  it('says in one line which port is taken, without a stack trace', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const run = startMain({ DATA_DIR: dataDir, PORT: String(port), MQTT_PORT: '0', ADMIN_TOKEN: 'a-long-enough-admin-token' });
    expect(await run.exited).to.equal(1);
    expect(run.output().trim()).to.equal(`openpie: HTTP (PORT) port ${port} on 127.0.0.1 is already in use`);
  });

  it('refuses a bad configuration with a readable message', async () => {
    const run = startMain({ DATA_DIR: dataDir, PORT: 'http' });
    expect(await run.exited).to.equal(1);
    expect(run.output()).to.match(/invalid configuration:\n\s+PORT: must be a port number/);
    expect(run.output()).to.not.match(/\bat .*\.ts:\d+/);
    expect(existsSync(join(dataDir, 'openpie.db'))).to.equal(false);
  });
});
