import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

const refused = (port: number) => new Promise<boolean>((done) => {
  const socket = connect(port, '127.0.0.1');
  socket.once('connect', () => {
    socket.destroy();
    done(false);
  });
  socket.once('error', () => done(true));
});

/**
 * `npm start` as people run it, then `kill -TERM <npm's pid>` as a process manager or `docker stop` does: npm passes
 * the signal to the one process it started, so that process must be the service itself, not a shell waiting for it.
 * The project's own start script runs in a scratch project whose dist/src/main.js loads src/main.ts (through tsx), so
 * no build is needed; prestart (the build) is skipped with --ignore-scripts.
 */
describe('npm start', function () {
  this.timeout(60_000);
  let dir: string;
  let servicePid: number | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'openpie-npm-start-'));
  });
  afterEach(() => {
    if (servicePid !== undefined) {
      try {
        process.kill(servicePid, 'SIGKILL');
      } catch {
        // already gone, as it should be
      }
    }
    servicePid = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds in a separate step (prestart), so the start script runs the service alone', () => {
    expect(scripts.prestart).to.equal('npm run build');
    expect(scripts.start).to.not.contain('npm run build');
  });

  it('stops the service on SIGTERM to npm, and npm exits', async () => {
    mkdirSync(join(dir, 'dist', 'src'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'npm-start-check', private: true, scripts: { start: scripts.start } }));
    writeFileSync(join(dir, 'dist', 'src', 'main.js'), [
      `process.stdout.write('service pid ' + process.pid + '\\n');`,
      `require(${JSON.stringify(require.resolve('tsx/cjs'))});`,
      `require(${JSON.stringify(join(ROOT, 'src', 'main.ts'))});`,
    ].join('\n'));
    const npm = spawn('npm', ['start', '--ignore-scripts'], {
      cwd: dir,
      env: {
        ...process.env, DATA_DIR: join(dir, 'data'), PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', HOST: '127.0.0.1',
        MQTT_HOST: '127.0.0.1', COAP_HOST: '127.0.0.1', ADMIN_TOKEN: 'a-long-enough-admin-token-of-40-chars-xy', LOG_LEVEL: 'warn',
      },
    });
    let output = '';
    npm.stdout.on('data', (b) => (output += b));
    npm.stderr.on('data', (b) => (output += b));
    const npmExited = new Promise<number | null>((done) => npm.on('exit', (code) => done(code)));
    const until = Date.now() + 40_000;
    while (!/Console:\s+http:\/\/127\.0\.0\.1:(\d+)/.test(output)) {
      if (Date.now() > until || npm.exitCode !== null) throw new Error(`the service did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    servicePid = Number(/service pid (\d+)/.exec(output)?.[1]);
    const port = Number(/Console:\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]);

    npm.kill('SIGTERM');
    const code = await Promise.race([npmExited, new Promise((r) => setTimeout(() => r('still running'), 15_000))]);

    expect(code, output).to.not.equal('still running');
    expect(await refused(port), 'the service still answers on its HTTP port').to.equal(true);
    let alive = true;
    try {
      process.kill(servicePid, 0);
    } catch {
      alive = false;
    }
    expect(alive, 'the service process outlived npm').to.equal(false);
  });
});
