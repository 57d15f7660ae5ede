import mqtt, { MqttClient } from 'mqtt';

/** A device as the admin API made it. */
export interface SoakDevice {
  deviceid: string;
  token: string;
  secret: string;
}

/** Latencies and errors of each operation in the current window; `take` starts the next window. */
export class Recorder {
  private latencies = new Map<string, number[]>();
  private errors = new Map<string, number>();
  readonly totals = { qos1Sent: 0, qos1Delivered: 0, resumeSent: 0, resumeDelivered: 0, errors: 0 };

  ok(op: string, ms: number): void {
    const list = this.latencies.get(op) ?? [];
    list.push(ms);
    this.latencies.set(op, list);
  }

  failed(op: string): void {
    this.errors.set(op, (this.errors.get(op) ?? 0) + 1);
    this.totals.errors++;
  }

  /** Per operation: count, errors, p50 and p99 in ms, over the window that ends now. */
  take(): Map<string, { count: number; errors: number; p50: number; p99: number }> {
    const out = new Map<string, { count: number; errors: number; p50: number; p99: number }>();
    for (const op of new Set([...this.latencies.keys(), ...this.errors.keys()])) {
      const sorted = (this.latencies.get(op) ?? []).sort((a, b) => a - b);
      const at = (q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
      out.set(op, { count: sorted.length, errors: this.errors.get(op) ?? 0, p50: at(0.5), p99: at(0.99) });
    }
    this.latencies = new Map();
    this.errors = new Map();
    return out;
  }
}

/** Connects; `onMessage` listens before the CONNACK, so a resumed session's queue is counted whole. */
const connect = (url: string, device: SoakDevice, options: mqtt.IClientOptions = {}, onMessage?: () => void) =>
  new Promise<MqttClient>((resolve, reject) => {
    const client = mqtt.connect(url, {
      clientId: device.deviceid, username: device.token, password: device.secret, reconnectPeriod: 0, ...options,
    });
    if (onMessage) client.on('message', onMessage);
    client.once('connect', () => resolve(client));
    client.once('error', reject);
  });

/** Repeats `step` every `ms` until stopped, timing each call under `op`. */
function every(ms: number, op: string, recorder: Recorder, step: () => Promise<void>): () => void {
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const started = performance.now();
      try {
        await step();
        recorder.ok(op, performance.now() - started);
      } catch {
        recorder.failed(op);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, ms - (performance.now() - started))));
    }
  };
  void loop();
  return () => {
    stopped = true;
  };
}

/** A message between two devices, timed from publish to delivery (the payload carries the send time). */
async function messagesBetween(url: string, [from, to]: SoakDevice[], qos: 0 | 1, ms: number, recorder: Recorder) {
  const op = `mqtt qos${qos}`;
  const topic = `@msg/soak/qos${qos}`;
  const rx = await connect(url, to);
  await rx.subscribeAsync(topic, { qos });
  rx.on('message', (_t, payload) => {
    recorder.ok(op, performance.now() - Number(payload.toString()));
    if (qos === 1) recorder.totals.qos1Delivered++;
  });
  const tx = await connect(url, from);
  const stop = every(ms, `${op} publish`, recorder, async () => {
    await tx.publishAsync(topic, String(performance.now()), { qos });
    if (qos === 1) recorder.totals.qos1Sent++;
  });
  return async () => {
    stop();
    await Promise.all([tx.endAsync(), rx.endAsync()]);
  };
}

/**
 * A persistent session that leaves and comes back: subscribed at QoS 1 with Clean Session 0, away for `awayMs` while
 * its peer sends 5 messages, back, and the same again every `ms`; every message sent is counted and must arrive.
 */
async function resumes(url: string, [session, peer]: SoakDevice[], ms: number, awayMs: number, recorder: Recorder) {
  const topic = '@msg/soak/resume';
  const tx = await connect(url, peer);
  const join = () => connect(url, session, { clean: false }, () => recorder.totals.resumeDelivered++);
  let rx = await join();
  await rx.subscribeAsync(topic, { qos: 1 });
  const stop = every(ms, 'resume', recorder, async () => {
    await rx.endAsync();
    for (let i = 0; i < 5; i++) {
      await tx.publishAsync(topic, `away ${i}`, { qos: 1 });
      recorder.totals.resumeSent++;
    }
    await new Promise((r) => setTimeout(r, awayMs));
    rx = await join();
  });
  return async () => {
    stop();
    await new Promise((r) => setTimeout(r, ms));
    await Promise.all([tx.endAsync(), rx.endAsync()]);
  };
}

/** A REST call that must answer 2xx. */
async function call(baseUrl: string, device: SoakDevice, method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Device ${device.deviceid}:${device.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status}`);
}

/**
 * The steady mixed load of the soak, about a sixth of a core on the 2-core reference machine: MQTT QoS 0 and 1
 * between devices, persistent-session resumes, shadow merges, batches, REST publishes and data-store queries. Needs
 * 9 devices of one group; resolves to a function that stops it.
 */
export async function startSoakLoad(baseUrl: string, mqttUrl: string, d: SoakDevice[], recorder: Recorder): Promise<() => Promise<void>> {
  let seq = 0;
  const stops = [
    await messagesBetween(mqttUrl, [d[0], d[1]], 0, 60, recorder),
    await messagesBetween(mqttUrl, [d[2], d[3]], 1, 60, recorder),
    await resumes(mqttUrl, [d[4], d[5]], 10_000, 2_000, recorder),
    every(200, 'shadow merge', recorder, () => call(baseUrl, d[6], 'PUT', '/v2/device/shadow/data', { data: { temp: 20 + (seq++ % 10), fw: '2.1' } })),
    every(2_000, 'batch 20x3', recorder, () => call(baseUrl, d[6], 'PUT', '/v2/device/shadow/batch', {
      batch: Array.from({ length: 20 }, (_, i) => ({ ts: -i * 100, data: { a: i, b: i * 2, c: i * 3 } })),
    })),
    every(200, 'rest publish', recorder, () => call(baseUrl, d[7], 'PUT', '/v2/device/message/soak/rest', { n: seq })),
    every(5_000, 'query 1h avg', recorder, () => call(baseUrl, d[8], 'POST', '/v2/feed/api/v1/datapoints/query', {
      start_relative: { value: 1, unit: 'hours' },
      metrics: [{ name: d[6].deviceid, aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'minutes' } }] }],
    })),
  ];
  return async () => {
    for (const stop of stops) await stop();
  };
}
