import type { MqttLogin } from './mqtt-targets';
import { runInWorker } from './run-in-worker';

export interface ConnectsSpec {
  mqttUrl: string;
  logins: MqttLogin[];
  /** Connects under way at once. */
  concurrency: number;
  timeoutMs: number;
}

export interface ConnectsRun {
  connects: number;
  seconds: number;
  connectsPerSecond: number;
}

/**
 * Connects every login (CONNECT to CONNACK, authentication included), `concurrency` at a time, from a worker thread;
 * all stay connected until the last one is in, then close.
 */
export function measureConnects(spec: ConnectsSpec): Promise<ConnectsRun> {
  return runInWorker<ConnectsSpec, ConnectsRun>('mqtt-connects-worker.js', spec, spec.timeoutMs + 30_000);
}
