import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { sleep } from './mqtt';

/**
 * A Mosquitto of one suite's own, on a free port, that the suite may stop and start: the shared one (infra/) must
 * never be stopped by a test. It keeps its sessions across a stop (persistence, written on SIGTERM), as the
 * production broker must (infra/mosquitto/mosquitto.conf). Anonymous, on 127.0.0.1 only.
 */
export interface PrivateMosquitto {
  url: string;
  /** Starts it on its port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** SIGTERM (it saves its sessions), and waits until it is gone. */
  stop(): Promise<void>;
  /** While stopped: deletes the saved sessions, as a broker that crashed before saving them would have lost them. */
  forgetSessions(): void;
  /** Stops it and removes its files. */
  dispose(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export async function privateMosquitto(): Promise<PrivateMosquitto> {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-mosquitto-'));
  const port = await freePort();
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      // Started as root, Mosquitto would switch to the 'mosquitto' user and lose access to this folder.
      `user ${userInfo().username}`,
      'persistence true',
      `persistence_location ${dir}/`,
      'log_dest none',
    ].join('\n') + '\n',
  );
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const stop = async () => {
    if (!child) return;
    child.kill('SIGTERM');
    await exited;
    child = undefined;
  };

  return {
    url: `mqtt://127.0.0.1:${port}`,
    async start() {
      if (child) return;
      const started = spawn('mosquitto', ['-c', conf], { stdio: 'ignore' });
      child = started;
      exited = new Promise((resolve) => started.once('exit', () => resolve()));
      const deadline = Date.now() + 5000;
      while (!(await accepts(port))) {
        if (started.exitCode !== null || Date.now() > deadline) throw new Error(`mosquitto did not start on port ${port}`);
        await sleep(20);
      }
    },
    stop,
    forgetSessions() {
      if (child) throw new Error('stop the broker first');
      rmSync(join(dir, 'mosquitto.db'), { force: true });
    },
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
