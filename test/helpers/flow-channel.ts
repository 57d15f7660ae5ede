import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { IClientOptions, MqttClient } from 'mqtt';
import { TestDevice } from './devices';
import { connectRaw, nextMessage } from './mqtt';
import { Stack } from './stack';

/** An application key as the admin API issues it (docs/operations.md "Application keys"). */
export interface TestApplication {
  key: string;
  secret: string;
  projectid: string;
}

export async function anApplication(stack: Pick<Stack, 'admin'>, projectid: string, groups?: string[]): Promise<TestApplication> {
  const res = await stack.admin('POST', '/v2/admin/applications', { body: { projectid, name: `flows-${randomUUID().slice(0, 6)}`, ...(groups && { groups }) } });
  if (res.status !== 201) throw new Error(`application key not issued: ${res.status} ${res.text}`);
  return { key: res.body.key, secret: res.body.secret, projectid };
}

/**
 * Connects as NETPIE's Node-RED nodes do (their flowchannelmqtt.js): ClientID `{key}-{process start time}`, username
 * the key, password the secret, a clean session, keepalive 15 s, then a subscription to `@private/#`.
 */
export async function connectApplication(url: string, app: TestApplication, extra: IClientOptions = {}): Promise<MqttClient> {
  const client = await connectRaw(url, { clientId: `${app.key}-${Date.now()}`, username: app.key, password: app.secret, clean: true, keepalive: 15, ...extra });
  await client.subscribeAsync('@private/#');
  return client;
}

/** `{deviceid}:{token}`, as `@tap/...` topics name a device. */
export const tapOf = (device: TestDevice) => `${device.deviceid}:${device.token}`;

/** The next message on `topic` (exactly), parsed as JSON. */
export async function nextJson(client: MqttClient, topic: string, ms = 4000): Promise<Record<string, unknown>> {
  const message = await nextMessage(client, (t) => t === topic, ms);
  return JSON.parse(message.payload) as Record<string, unknown>;
}

/** Subscribes and checks the grant: `expected` 128 (0x80) or MQTT 5's 0x87 for a refusal. */
export async function subscribeExpecting(client: MqttClient, filter: string, expected: number): Promise<void> {
  // mqtt.js rejects a SUBACK that refuses, with the SUBACK in hand.
  const codes = await client.subscribeAsync(filter, { qos: 1 }).then(
    (granted) => granted.map((g) => g.qos),
    (err: { packet?: { granted?: (number | { qos: number })[] } }) => (err.packet?.granted ?? []).map((g) => (typeof g === 'number' ? g : g.qos)),
  );
  expect(codes, filter.replace(/:[^/]+/, ':***')).to.deep.equal([expected]);
}
