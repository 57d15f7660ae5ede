import mqtt, { IClientOptions, MqttClient } from 'mqtt';
import { TestDevice } from './devices';

/** Connects a device with mqtt.js over TCP; resolves once CONNACK says yes, rejects with the refusal otherwise. */
export function connectDevice(url: string, device: TestDevice, extra: IClientOptions = {}): Promise<MqttClient> {
  return connectRaw(url, { clientId: device.deviceid, username: device.token, password: '', ...extra });
}

export function connectRaw(url: string, options: IClientOptions): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 5000, ...options });
    client.once('connect', () => resolve(client));
    client.once('error', (err) => {
      client.end(true);
      reject(err);
    });
  });
}

/** Collects every message a client receives, to assert on later. */
export function collect(client: MqttClient): { topic: string; payload: string }[] {
  const seen: { topic: string; payload: string }[] = [];
  client.on('message', (topic, payload) => seen.push({ topic, payload: payload.toString() }));
  return seen;
}

/** Resolves with the first message matching `pred`, or rejects after `ms`. */
export function nextMessage(client: MqttClient, pred: (topic: string) => boolean = () => true, ms = 3000) {
  return new Promise<{ topic: string; payload: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('message', onMessage);
      reject(new Error('no message arrived in time'));
    }, ms);
    const onMessage = (topic: string, payload: Buffer) => {
      if (!pred(topic)) return;
      clearTimeout(timer);
      client.off('message', onMessage);
      resolve({ topic, payload: payload.toString() });
    };
    client.on('message', onMessage);
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function endAll(...clients: (MqttClient | undefined)[]): Promise<void> {
  await Promise.all(clients.map((c) => c?.endAsync(true)));
}
