import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(__dirname, '../../src/main.ts');

export interface MainProcess {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** stdout alone so far: the banner and the structured (pino) log. */
  stdout(): string;
  /** stderr alone so far. */
  stderr(): string;
  exited: Promise<number | null>;
  /** Resolves once `pattern` appears in the output; fails after `ms` with the output so far. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
}

/** The production backends `npm test` points the suites at (infra/env.sh): a plain `npm start` has none of them. */
const BACKEND_VARIABLES = /^(CASSANDRA_|KAIROSDB_|BACKBONE_|SESSION_|STORE$|TIMESERIES$)/;

/**
 * `node src/main.ts` (through tsx) as `npm start` runs it on a fresh machine, on loopback addresses, with extra env
 * and arguments; the test run's backend variables are left out unless `env` names them.
 */
export function startMainProcess(env: Record<string, string>, args: string[] = []): MainProcess {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !BACKEND_VARIABLES.test(name)));
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    env: { ...inherited, LOG_LEVEL: 'info', HOST: '127.0.0.1', MQTT_HOST: '127.0.0.1', COAP_HOST: '127.0.0.1', ...env },
  });
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (b) => ((output += b), (stdout += b)));
  child.stderr!.on('data', (b) => ((output += b), (stderr += b)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
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

/** The ports a started process listens on, from its "openpie listening" log line (LOG_LEVEL info or lower). */
export async function listeningPorts(run: MainProcess, ms = 20_000): Promise<{ httpPort: number; mqttPort: number; coapPort: number }> {
  const [line] = await run.waitFor(/^.*"msg":"openpie listening".*$/m, ms);
  return JSON.parse(line);
}
