import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { aDevice, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/**
 * `curl -d` and axios (so the NETPIE vendor's Node-RED message node) send `Content-Type:
 * application/x-www-form-urlencoded` unless told otherwise, with the raw text as the body (issue 18 §1).
 */
const FORM = 'application/x-www-form-urlencoded';

describe('what a message or JSON body may be sent as (docs/device-api.md "Message bodies", "Request bodies")', () => {
  let stack: Stack;
  let device: TestDevice;
  let listener: MqttClient;
  before(async () => {
    stack = await startStack();
    device = await aDevice(stack);
    // MQTT 5, to see the Content Type property each message arrives with.
    listener = await connectDevice(stack.mqttUrl, device, { protocolVersion: 5 });
    await listener.subscribeAsync(['@msg/#', '@private/#']);
  });
  after(async () => {
    await endAll(listener);
    await stack.stop();
  });

  /** fetch sends no Content-Type for bytes (the test client would add text/plain). */
  async function withoutContentType(path: string, body: Buffer) {
    const res = await fetch(stack.baseUrl + path, { method: 'PUT', headers: { authorization: device.auth }, body });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) };
  }

  /** Publishes `body` with `contentType` and answers the reply and the message as the group's MQTT 5 subscriber gets it. */
  async function sent(path: string, body: string | Buffer, contentType?: string) {
    const arrived = new Promise<{ topic: string; payload: Buffer; contentType?: string }>((resolve) =>
      listener.once('message', (topic, payload, packet) => resolve({ topic, payload, contentType: packet.properties?.contentType })),
    );
    const res = contentType === undefined ? await withoutContentType(path, Buffer.from(body)) : await asDevice(stack, device)('PUT', path, { body, contentType });
    expect(res.status, res.text).to.equal(200);
    return { res, message: await arrived };
  }

  it('a message sent as a form (curl -d, axios) arrives byte for byte, not form-decoded, without the form type as its Content Type', async () => {
    const { res, message } = await sent('/v2/device/message/home/lamp', 'a=1&b=two words+x%20', FORM);

    expect(res.body).to.deep.equal({ status: 200, message: 'published to @msg/home/lamp' });
    expect(message.topic).to.equal('@msg/home/lamp');
    expect(message.payload.toString()).to.equal('a=1&b=two words+x%20');
    expect(message.contentType).to.equal(undefined);
  });

  it('a private message sent as a form arrives the same way', async () => {
    const { message } = await sent('/v2/device/private/inbox', 'ON', `${FORM}; charset=utf-8`);

    expect([message.topic, message.payload.toString(), message.contentType]).to.deep.equal(['@private/inbox', 'ON', undefined]);
  });

  for (const contentType of ['text/plain', 'text/csv', 'application/json', 'application/octet-stream', undefined]) {
    it(`a message sent as ${contentType ?? 'no Content-Type'} arrives byte for byte, its type passed on to MQTT 5`, async () => {
      const body = contentType === 'application/octet-stream' ? Buffer.from([0, 255, 1, 254]) : '{"on":true}';

      const { message } = await sent('/v2/device/message/home/any', body, contentType);

      expect(message.payload.equals(Buffer.from(body))).to.equal(true);
      expect(message.contentType).to.equal(contentType);
    });
  }

  it('a multipart body, an envelope of parts rather than a message, is 415 and publishes nothing', async () => {
    const multipart = 'multipart/form-data; boundary=xyz';
    const res = await asDevice(stack, device)('PUT', '/v2/device/message/home/lamp', { body: '--xyz\r\n\r\nON\r\n--xyz--', contentType: multipart });

    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(res.body.message).to.match(/^got Content-Type: multipart\/form-data, an envelope of parts, not a message/);
    const next = nextMessage(listener, () => true, 300);
    await next.then(
      (m) => expect.fail(`published anyway: ${JSON.stringify(m)}`),
      (err: Error) => expect(err.message).to.match(/no message|timed out|within/i),
    );
  });

  it('a JSON endpoint reads JSON sent as a form (curl -d) as JSON', async () => {
    const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: '{"data":{"temp":1}}', contentType: FORM });

    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.include({ temp: 1 });
  });

  it('a JSON endpoint sent real form fields says they are not read and asks for JSON', async () => {
    const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: 'data=1', contentType: FORM });

    expectError(res, 400, 'INVALID_JSON');
    expect(res.body.message).to.match(/sent as application\/x-www-form-urlencoded, as curl -d does; form fields are not read: send JSON\)$/);
  });

  it('a JSON endpoint refuses a type that cannot be JSON with 415 and says how to send it with curl', async () => {
    const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: '<data/>', contentType: 'application/xml' });

    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(res.body.message).to.equal(
      "got Content-Type: application/xml; accepted: application/json (or a +json type), text/plain, or none: add -H 'Content-Type: application/json'",
    );
  });
});
