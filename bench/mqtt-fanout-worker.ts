import type { MqttClient } from 'mqtt';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { FanoutReport, FanoutRun, FanoutSpec } from './mqtt-fanout';
import { connectLogin } from './mqtt-targets';

/** Counts deliveries across all subscribers and lets the publisher wait until a count is reached. */
function deliveryCounter(subscribers: MqttClient[]) {
  let delivered = 0;
  let lastDeliveryAt = 0;
  let waiter: { target: number; resolve: (reached: boolean) => void } | undefined;
  const onMessage = () => {
    delivered++;
    lastDeliveryAt = performance.now();
    if (waiter && delivered >= waiter.target) {
      const { resolve } = waiter;
      waiter = undefined;
      resolve(true);
    }
  };
  for (const s of subscribers) s.on('message', onMessage);
  return {
    get delivered() {
      return delivered;
    },
    get lastDeliveryAt() {
      return lastDeliveryAt;
    },
    /** Resolves true once `target` deliveries have arrived, false if `deadline` (performance.now() ms) comes first. */
    reach(target: number, deadline: number): Promise<boolean> {
      if (delivered >= target) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          resolve(false);
        }, Math.max(0, deadline - performance.now()));
        waiter = {
          target,
          resolve: (reached) => {
            clearTimeout(timer);
            resolve(reached);
          },
        };
      });
    },
  };
}

async function publishPhase(
  spec: FanoutSpec,
  publisher: MqttClient,
  counter: ReturnType<typeof deliveryCounter>,
  messages: number,
): Promise<FanoutRun> {
  const fanout = spec.subscribers.length;
  const payload = Buffer.alloc(spec.payloadBytes, 'x');
  const base = counter.delivered;
  const start = performance.now();
  const deadline = start + spec.timeoutMs;
  let published = 0;
  let inTime = true;
  while (published < messages && inTime) {
    // Backpressure end to end: the broker never holds more than `burstsInFlight` bursts per subscriber.
    const caughtUp = base + Math.max(0, published - spec.burst * spec.burstsInFlight) * fanout;
    inTime = await counter.reach(caughtUp, deadline);
    if (!inTime) break;
    const count = Math.min(spec.burst, messages - published);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < count; i++) writes.push(publisher.publishAsync(spec.topic, payload, { qos: 0 }));
    await Promise.all(writes);
    published += count;
  }
  const complete = inTime && (await counter.reach(base + published * fanout, deadline));
  const end = complete ? counter.lastDeliveryAt : performance.now();
  const seconds = (end - start) / 1000;
  const deliveries = counter.delivered - base;
  return {
    published,
    expectedDeliveries: messages * fanout,
    deliveries,
    seconds,
    deliveriesPerSecond: deliveries / seconds,
    publishedPerSecond: published / seconds,
  };
}

async function main(spec: FanoutSpec): Promise<FanoutReport> {
  const clients: MqttClient[] = [];
  try {
    const subscribers = await Promise.all(spec.subscribers.map((login) => connectLogin(spec.mqttUrl, login)));
    clients.push(...subscribers);
    const publisher = await connectLogin(spec.mqttUrl, spec.publisher);
    clients.push(publisher);
    for (const s of subscribers) {
      const [grant] = await s.subscribeAsync(spec.filter, { qos: 0 });
      // 0x80 in SUBACK: the broker refused the filter [MQTT-3.9.3-2].
      if (!grant || grant.qos === 0x80) throw new Error(`subscription to ${spec.filter} refused`);
    }
    const counter = deliveryCounter(subscribers);
    const warmup = await publishPhase(spec, publisher, counter, spec.warmupMessages);
    // Late warm-up deliveries would be counted as measured ones: stop here and let the caller report the shortfall.
    if (warmup.deliveries !== warmup.expectedDeliveries) return { warmup };
    return { warmup, measured: await publishPhase(spec, publisher, counter, spec.messages) };
  } finally {
    await Promise.all(clients.map((c) => c.endAsync(true)));
  }
}

// A rejection is left unhandled on purpose: it ends the worker with an 'error' event, which runInWorker rejects with.
void main(workerData as FanoutSpec).then((report) => parentPort?.postMessage(report));
