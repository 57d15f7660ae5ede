import type { MqttClient } from 'mqtt';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { PairsRun, PairsSpec } from './mqtt-pairs';
import { connectLogin } from './mqtt-targets';

const percentile = (sorted: Float64Array, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function main(spec: PairsSpec): Promise<PairsRun> {
  const clients: MqttClient[] = [];
  try {
    const latencies: number[] = [];
    let delivered = 0;
    const pairs: { publisher: MqttClient; topic: string }[] = [];
    for (const pair of spec.pairs) {
      const subscriber = await connectLogin(spec.mqttUrl, pair.subscriber);
      clients.push(subscriber);
      const [grant] = await subscriber.subscribeAsync(pair.topic, { qos: 1 });
      if (!grant || grant.qos === 0x80) throw new Error(`subscription to ${pair.topic} refused`);
      // The payload carries its send time: latency is measured on one clock, this thread's.
      subscriber.on('message', (_topic, payload) => {
        latencies.push(performance.now() - payload.readDoubleLE(0));
        delivered++;
      });
      const publisher = await connectLogin(spec.mqttUrl, pair.publisher);
      clients.push(publisher);
      pairs.push({ publisher, topic: pair.topic });
    }
    const messages = spec.pairs.length * spec.messagesPerPair;
    const start = performance.now();
    const deadline = start + spec.timeoutMs;
    await Promise.all(
      pairs.map(async ({ publisher, topic }) => {
        for (let k = 0; k < spec.messagesPerPair && performance.now() < deadline; k++) {
          const payload = Buffer.alloc(spec.payloadBytes);
          payload.writeDoubleLE(performance.now(), 0);
          await publisher.publishAsync(topic, payload, { qos: 1 });
        }
      }),
    );
    while (delivered < messages && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    const seconds = (performance.now() - start) / 1000;
    const sorted = Float64Array.from(latencies).sort();
    return { messages, delivered, seconds, messagesPerSecond: delivered / seconds, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
  } finally {
    await Promise.all(clients.map((c) => c.endAsync(true)));
  }
}

// A rejection is left unhandled on purpose: it ends the worker with an 'error' event, which runInWorker rejects with.
void main(workerData as PairsSpec).then((report) => parentPort?.postMessage(report));
