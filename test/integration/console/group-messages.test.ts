import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { openApiDocument } from '../../../src/http/openapi/document';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { openSse, SseClient } from '../../helpers/event-stream';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { restPublish } from '../../helpers/mqtt-expect';
import { expectDocumentedResponse, OpenApiDocument, schemaValidator } from '../../helpers/openapi';
import { expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const doc = openApiDocument() as unknown as OpenApiDocument;
const messagesPath = (d: TestDevice) => `/v2/admin/groups/${d.projectid}/${d.groupid}/messages`;

describe('GET /v2/admin/groups/{projectid}/{groupid}/messages (Server-Sent Events)', () => {
  let stack: Stack;
  let sender: TestDevice;
  let other: TestDevice;
  let stranger: TestDevice;
  let clients: MqttClient[] = [];
  let streams: SseClient[] = [];
  const watch = async (d: TestDevice) => {
    const sse = await openSse(stack.baseUrl + messagesPath(d), { authorization: `Bearer ${stack.server.adminToken}` });
    streams.push(sse);
    return sse;
  };

  before(async () => {
    stack = await startStack();
    [sender, other] = await aGroup(stack, 2);
    // The same project, another group.
    stranger = await aDevice(stack, { projectid: sender.projectid });
  });
  afterEach(async () => {
    for (const s of streams) s.close();
    streams = [];
    await endAll(...clients);
    clients = [];
  });
  after(() => stack.stop());

  it('streams a device\'s MQTT publish in the group, and not another group\'s', async () => {
    const sse = await watch(sender);
    expect(sse.status).to.equal(200);
    expect(sse.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(sse.headers.get('cache-control')).to.include('no-cache');
    const ready = await sse.next((e) => e.event === 'ready');
    expect(ready.json).to.deep.equal({ projectid: sender.projectid, groupid: sender.groupid, topic: '@msg/#' });

    const strangerClient = await connectDevice(stack.mqttUrl, stranger);
    const senderClient = await connectDevice(stack.mqttUrl, sender);
    clients.push(strangerClient, senderClient);
    await strangerClient.publishAsync('@msg/home/lamp', 'not yours', { qos: 1 });
    await senderClient.publishAsync('@msg/home/lamp', 'ON', { qos: 1 });

    const message = await sse.next((e) => e.event === 'message');
    expect(message.json).to.include({ topic: '@msg/home/lamp', payload: 'ON', encoding: 'utf8', bytes: 2, truncated: false });
    expect(message.json.ts).to.be.closeTo(Date.now(), 5000);
    // The stranger published first, on the same broker: had it leaked, it would have arrived first.
    expect(sse.events.filter((e) => e.event === 'message').map((e) => e.json.payload)).to.deep.equal(['ON']);
  });

  it('streams REST publishes too', async () => {
    const sse = await watch(sender);
    await sse.next((e) => e.event === 'ready');
    await restPublish(stack, other, 'a/b', 'from rest');
    const message = await sse.next((e) => e.event === 'message');
    expect(message.json).to.include({ topic: '@msg/a/b', payload: 'from rest' });
  });

  it('cuts the payload to a preview of 4096 bytes and says how long it was', async () => {
    const sse = await watch(sender);
    await sse.next((e) => e.event === 'ready');
    const client = await connectDevice(stack.mqttUrl, sender);
    clients.push(client);
    await client.publishAsync('@msg/big', 'é'.repeat(5000), { qos: 1 });
    const message = await sse.next((e) => e.event === 'message');
    expect(message.json).to.include({ bytes: 10_000, truncated: true, encoding: 'utf8' });
    // 4096 bytes hold 2048 two-byte characters: none is cut in half.
    expect(message.json.payload).to.equal('é'.repeat(2048));
  });

  it('shows a payload that is not UTF-8 as base64', async () => {
    const sse = await watch(sender);
    await sse.next((e) => e.event === 'ready');
    const client = await connectDevice(stack.mqttUrl, sender);
    clients.push(client);
    await client.publishAsync('@msg/bin', Buffer.from([0xff, 0x00, 0xfe]), { qos: 1 });
    const message = await sse.next((e) => e.event === 'message');
    expect(message.json).to.include({ encoding: 'base64', payload: Buffer.from([0xff, 0x00, 0xfe]).toString('base64'), bytes: 3 });
  });

  it('needs the admin token', async () => {
    const res = await stack.http('GET', messagesPath(sender));
    expectError(res, 401, 'MISSING_CREDENTIALS');
    expectDocumentedResponse(doc, schemaValidator(doc), { method: 'GET', path: '/v2/admin/groups/{projectid}/{groupid}/messages' }, res);
  });

  it('refuses a group id that cannot exist', async () => {
    const res = await stack.admin('GET', `/v2/admin/groups/${sender.projectid}/bad$group/messages`);
    expectError(res, 400, 'INVALID_QUERY');
  });
});

describe('POST /v2/admin/groups/{projectid}/{groupid}/messages', () => {
  let stack: Stack;
  let listener: TestDevice;
  let stranger: TestDevice;
  let clients: MqttClient[] = [];

  before(async () => {
    stack = await startStack();
    listener = await aDevice(stack);
    stranger = await aDevice(stack, { projectid: listener.projectid });
  });
  afterEach(async () => {
    await endAll(...clients);
    clients = [];
  });
  after(() => stack.stop());

  it('publishes on @msg/{topic} in the group, reaching its MQTT subscribers only', async () => {
    const client = await connectDevice(stack.mqttUrl, listener);
    const strangerClient = await connectDevice(stack.mqttUrl, stranger);
    clients.push(client, strangerClient);
    await client.subscribeAsync('@msg/#', { qos: 1 });
    await strangerClient.subscribeAsync('@msg/#', { qos: 1 });
    const strangerGot: string[] = [];
    strangerClient.on('message', (topic) => strangerGot.push(topic));

    const arrived = nextMessage(client);
    const res = await stack.admin('POST', messagesPath(listener), { body: { topic: 'home/lamp', payload: 'ON' } });

    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ status: 200, message: 'published to @msg/home/lamp' });
    expect(await arrived).to.deep.equal({ topic: '@msg/home/lamp', payload: 'ON' });
    expect(strangerGot).to.deep.equal([]);
    expectDocumentedResponse(doc, schemaValidator(doc), { method: 'POST', path: '/v2/admin/groups/{projectid}/{groupid}/messages' }, res);
  });

  it('reaches the live view of the group', async () => {
    const sse = await openSse(stack.baseUrl + messagesPath(listener), { authorization: `Bearer ${stack.server.adminToken}` });
    try {
      await sse.next((e) => e.event === 'ready');
      await stack.admin('POST', messagesPath(listener), { body: { topic: 'x', payload: 'hello' } });
      expect((await sse.next((e) => e.event === 'message')).json).to.include({ topic: '@msg/x', payload: 'hello' });
    } finally {
      sse.close();
    }
  });

  it('refuses the topics the Device API refuses', async () => {
    for (const topic of ['@private/x', '@msg/@msg/x', 'a/+', 'a//b', '']) {
      const res = await stack.admin('POST', messagesPath(listener), { body: { topic, payload: 'x' } });
      expectError(res, 400, 'INVALID_TOPIC');
    }
  });

  it('refuses unknown members and a missing payload', async () => {
    expectError(await stack.admin('POST', messagesPath(listener), { body: { topic: 'x', payload: 'x', retain: true } }), 400, 'INVALID_BODY');
    expectError(await stack.admin('POST', messagesPath(listener), { body: { topic: 'x' } }), 400, 'INVALID_BODY');
  });

  it('refuses a payload over the message limit of 256 KiB', async () => {
    const res = await stack.admin('POST', messagesPath(listener), { body: { topic: 'x', payload: 'a'.repeat(256 * 1024 + 1) } });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('an open message stream when the service stops', () => {
  it('ends, and does not hold the shutdown for SHUTDOWN_TIMEOUT_MS', async () => {
    const stack = await startStack({ env: { SHUTDOWN_TIMEOUT_MS: '20000' } });
    const device = await aDevice(stack);
    const sse = await openSse(stack.baseUrl + messagesPath(device), { authorization: `Bearer ${stack.server.adminToken}` });
    await sse.next((e) => e.event === 'ready');
    const started = Date.now();

    await stack.stop();

    expect(Date.now() - started).to.be.lessThan(5000);
    await sse.ended(1000);
  });
});
