import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { TestDevice } from './devices';
import { collect, connectDevice, nextMessage } from './mqtt';
import { asDevice } from './rest-device';
import { Stack } from './stack';

export const GET = '@shadow/data/get';
export const UPDATE = '@shadow/data/update';
export const BATCH = '@shadow/batch/update';
export const UPDATED = '@shadow/data/updated';
export const GET_RESPONSE = '@private/shadow/data/get/response';
export const UPDATE_RESPONSE = '@private/shadow/data/update/response';
export const BATCH_RESPONSE = '@private/shadow/batch/update/response';

export interface Received {
  topic: string;
  /** The payload as sent, to check key order. */
  raw: string;
  body: any;
}

const parse = (m: { topic: string; payload: string }): Received => ({ topic: m.topic, raw: m.payload, body: JSON.parse(m.payload) });

/** A device on MQTT that listens to its replies (`@private/#`) and to `@shadow/data/updated`. */
export interface ShadowSession {
  client: MqttClient;
  /** Everything received since connecting, in order. */
  seen: { topic: string; payload: string }[];
  /** Publishes a request (an object is sent as JSON) and resolves with the first message on `replyTopic` after it. */
  ask(topic: string, payload: string | Buffer | object, replyTopic: string): Promise<Received>;
  /** The shadow as `@shadow/data/get` answers it. */
  get(): Promise<Received>;
  /**
   * What arrived after the `from`-th message, up to the reply of a `@shadow/data/get` sent now. Replies keep the order
   * of requests, so whatever an earlier request caused has arrived by then.
   */
  messagesUntilSettled(from: number): Promise<{ topic: string; payload: string }[]>;
  end(): Promise<void>;
}

export async function shadowSession(stack: Stack, device: TestDevice): Promise<ShadowSession> {
  const client = await connectDevice(stack.mqttUrl, device);
  const granted = await client.subscribeAsync(['@private/#', UPDATED]);
  expect(granted.map((g) => g.qos)).to.deep.equal([0, 0]);
  const seen = collect(client);
  const ask = async (topic: string, payload: string | Buffer | object, replyTopic: string) => {
    const reply = nextMessage(client, (t) => t === replyTopic);
    const bytes = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload);
    await client.publishAsync(topic, bytes);
    return parse(await reply);
  };
  return {
    client,
    seen,
    ask,
    get: () => ask(GET, '', GET_RESPONSE),
    async messagesUntilSettled(from) {
      await ask(GET, '', GET_RESPONSE);
      const after = seen.slice(from);
      return after.slice(0, after.findIndex((m) => m.topic === GET_RESPONSE));
    },
    end: () => client.endAsync(true),
  };
}

/** The shadow as REST reads it. */
export async function restShadow(stack: Stack, device: TestDevice) {
  const res = await asDevice(stack, device)('GET', '/v2/device/shadow/data');
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

/** Values of one field's series over the last day, as the data-store API answers the device itself. */
export async function pointsOf(stack: Stack, device: TestDevice, field: string): Promise<[number, number][]> {
  const res = await stack.http('POST', '/v2/feed/api/v1/datapoints/query', {
    headers: { authorization: device.auth },
    body: { start_relative: { value: 2, unit: 'days' }, metrics: [{ name: device.deviceid, tags: { attr: [field] } }] },
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.queries[0].results[0]?.values ?? [];
}

/** Checks the one error body of the service, as sent over MQTT (no requestId there). */
export function expectErrorReply(reply: Received, status: number, code: string): void {
  expect(reply.body, reply.raw).to.be.an('object');
  expect(reply.body).to.include({ status, code });
  expect(reply.body.message).to.be.a('string').that.is.not.empty;
  expect(reply.body).to.not.have.property('requestId');
}

/**
 * Runs `act` with a shadow session of a fresh device while a groupmate subscribed to `@private/#` and `@msg/#`
 * listens, then has the groupmate ask for its own shadow: returns everything the groupmate received up to and
 * including that answer, which arrives after anything that could have leaked to it.
 */
export async function whatAGroupmateSees(
  stack: Stack,
  /** The device that acts, then its groupmate. */
  devices: readonly TestDevice[],
  act: (session: ShadowSession) => Promise<void>,
): Promise<{ topic: string; payload: string }[]> {
  const [device, groupmate] = devices;
  const session = await shadowSession(stack, device);
  const other = await connectDevice(stack.mqttUrl, groupmate);
  try {
    await other.subscribeAsync(['@private/#', '@msg/#']);
    const seen = collect(other);
    await act(session);
    const own = nextMessage(other, (t) => t === GET_RESPONSE);
    await other.publishAsync(GET, '');
    await own;
    return seen;
  } finally {
    await Promise.all([session.end(), other.endAsync(true)]);
  }
}
