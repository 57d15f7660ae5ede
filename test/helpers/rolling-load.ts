import mqtt, { IConnackPacket, MqttClient } from 'mqtt';
import { TestDevice } from './devices';
import { sleep } from './mqtt';

/** A request or PUBACK that takes longer than this counts as failed (not acknowledged) and is tried again. */
export const ATTEMPT_MS = 5_000;
/** Pause between two operations of one load loop: steady load that two shared cores can carry beside three nodes. */
const PACE_MS = 40;

/** Where the load goes: the nodes that are up now (one at most is down), as base URLs and MQTT URLs. */
export interface Targets {
  /** A live node, round-robin, other than the one on `avoid` (an MQTT URL) when there is a choice. */
  next(avoid?: string): { base: string; mqttUrl: string };
  /** True once the load is to stop. */
  stopped(): boolean;
}

/** What one kind of load sent, what was acknowledged (by sequence number), and where each arrived. */
export interface Tally {
  sent: number;
  acked: Set<number>;
  /** Deliveries per sequence number (messages only). */
  delivered: Map<number, number>;
  /** Answers that were neither 2xx nor a node going away (503 or no answer): a test bug, or a finding. */
  odd: string[];
}

export const tally = (): Tally => ({ sent: 0, acked: new Set(), delivered: new Map(), odd: [] });

/** fetch with a bound; any failure (refused, reset, timeout) is `undefined`: not acknowledged. */
export async function attempt(url: string, init: RequestInit = {}): Promise<number | undefined> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(ATTEMPT_MS) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

/**
 * Sends request `seq` (1, 2, ...) to a live node until the load stops; 2xx acknowledges it and moves on, anything else
 * sends the same `seq` again (to the next node), so an acknowledged write is never the last try of a lost one.
 */
export async function restLoad(targets: Targets, into: Tally, request: (seq: number) => { path: string; init: RequestInit }): Promise<void> {
  for (let seq = 1; !targets.stopped(); await sleep(PACE_MS)) {
    const { path, init } = request(seq);
    into.sent++;
    const status = await attempt(targets.next().base + path, init);
    if (status !== undefined && status >= 200 && status < 300) into.acked.add(seq++);
    else if (status !== undefined && status !== 503) into.odd.push(`${path}: ${status}`);
  }
}

/** Connects with mqtt.js, handlers on before CONNECT (queued messages follow CONNACK at once); rejects on failure. */
function connectWith(url: string, device: TestDevice, clean: boolean, onMessage?: (payload: Buffer) => void): Promise<{ client: MqttClient; connack: IConnackPacket }> {
  const client = mqtt.connect(url, { clientId: device.deviceid, username: device.token, password: '', clean, reconnectPeriod: 0, connectTimeout: ATTEMPT_MS });
  if (onMessage) client.on('message', (_topic, payload) => onMessage(payload));
  return new Promise((resolve, reject) => {
    client.once('connect', (connack) => {
      client.on('error', () => undefined);
      resolve({ client, connack });
    });
    client.once('error', (err) => reject(err));
    client.once('close', () => reject(new Error('closed before CONNACK')));
  }).catch((err) => {
    client.end(true);
    throw err;
  }) as Promise<{ client: MqttClient; connack: IConnackPacket }>;
}

/**
 * A device with a persistent session (clean = false) and a QoS 1 subscription to `topic`, recording every payload (a
 * sequence number) into `into`. When its connection closes (its node stops) it resumes the session on another live
 * node; a CONNACK there without session present is counted, as the session should have been found in Redis.
 */
export async function persistentSubscriber(targets: Targets, device: TestDevice, topic: string, into: Tally) {
  const record = (payload: Buffer) => into.delivered.set(Number(payload), (into.delivered.get(Number(payload)) ?? 0) + 1);
  let current = targets.next();
  let { client } = await connectWith(current.mqttUrl, device, false, record);
  await client.subscribeAsync(topic, { qos: 1 });
  let done = false;
  let notPresent = 0;
  let reconnections = 0;
  let wake = () => undefined as void;
  const roam = (async () => {
    while (!done) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        client.once('close', () => resolve());
      });
      if (done) return;
      client.end(true);
      for (;;) {
        current = targets.next(current.mqttUrl);
        try {
          const next = await connectWith(current.mqttUrl, device, false, record);
          client = next.client;
          reconnections++;
          if (!next.connack.sessionPresent) notPresent++;
          break;
        } catch {
          await sleep(100);
        }
      }
    }
  })();
  return {
    mqttUrl: () => current.mqttUrl,
    notPresent: () => notPresent,
    reconnections: () => reconnections,
    async end() {
      done = true;
      wake();
      await roam;
      await client.endAsync(true);
    },
  };
}

/**
 * QoS 1 publishes of 1, 2, ... to `topic`, on a live node other than `avoid()`'s: PUBACK acknowledges one; a lost
 * connection or no PUBACK in time ends the connection, and the same number is sent again over a new one.
 */
export async function mqttLoad(targets: Targets, device: TestDevice, topic: string, into: Tally, avoid: () => string): Promise<void> {
  let client: MqttClient | undefined;
  let closed: Promise<boolean> = Promise.resolve(false);
  for (let seq = 1; !targets.stopped(); await sleep(PACE_MS)) {
    if (client === undefined) {
      try {
        client = (await connectWith(targets.next(avoid()).mqttUrl, device, true)).client;
      } catch {
        await sleep(100);
        continue;
      }
      const mine = client;
      closed = new Promise((resolve) => mine.once('close', () => resolve(false)));
    }
    into.sent++;
    const acked = await Promise.race([
      client.publishAsync(topic, String(seq), { qos: 1 }).then(() => true, () => false),
      closed,
      sleep(ATTEMPT_MS).then(() => false),
    ]);
    if (acked) {
      into.acked.add(seq++);
    } else {
      client.end(true);
      client = undefined;
    }
  }
  await client?.endAsync(true);
}

/** Acknowledged numbers that never arrived, and extra arrivals (QoS 1 may deliver twice). */
export function deliveries(t: Tally): { delivered: number; duplicates: number; lost: number[] } {
  const lost = [...t.acked].filter((seq) => !t.delivered.has(seq));
  const duplicates = [...t.delivered.values()].reduce((sum, n) => sum + n - 1, 0);
  return { delivered: [...t.acked].length - lost.length, duplicates, lost };
}
