import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(__dirname, '../../src/main.ts');

export interface MainProcess {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  exited: Promise<number | null>;
  /** Resolves once `pattern` appears in the output; fails after `ms` with the output so far. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
}

/** `node src/main.ts` (through tsx) as `npm start` runs it, on loopback addresses, with extra env and arguments. */
export function startMainProcess(env: Record<string, string>, args: string[] = []): MainProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', MQTT_HOST: '127.0.0.1', COAP_HOST: '127.0.0.1', ...env },
  });
  let output = '';
  child.stdout!.on('data', (b) => (output += b));
  child.stderr!.on('data', (b) => (output += b));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async waitFor(pattern, ms = 15_000) {
      const until = Date.now() + ms;
      for (;;) {
        const match = output.match(pattern);
        if (match) return match;
        if (Date.now() > until || child.exitCode !== null) throw new Error(`${pattern} never printed; output:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
