import type { MqttClient } from 'mqtt';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { ConnectsRun, ConnectsSpec } from './mqtt-connects';
import { connectLogin } from './mqtt-targets';

async function main(spec: ConnectsSpec): Promise<ConnectsRun> {
  const clients: MqttClient[] = [];
  try {
    const start = performance.now();
    for (let i = 0; i < spec.logins.length; i += spec.concurrency) {
      if (performance.now() - start > spec.timeoutMs) throw new Error(`${clients.length} connects in ${spec.timeoutMs} ms`);
      const batch = spec.logins.slice(i, i + spec.concurrency);
      clients.push(...(await Promise.all(batch.map((login) => connectLogin(spec.mqttUrl, login, 600)))));
    }
    const seconds = (performance.now() - start) / 1000;
    return { connects: clients.length, seconds, connectsPerSecond: clients.length / seconds };
  } finally {
    await Promise.all(clients.map((c) => c.endAsync(true)));
  }
}

// A rejection is left unhandled on purpose: it ends the worker with an 'error' event, which runInWorker rejects with.
void main(workerData as ConnectsSpec).then((report) => parentPort?.postMessage(report));
