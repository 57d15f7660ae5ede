import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { coapAs } from '../../helpers/coap';
import { aDevice, TestDevice } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { asDevice, expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';
import { startWebhookServer, WebhookServer } from '../../helpers/webhook-server';

/** The hook's webhook goes to a test server on 127.0.0.1, which the operator allow-lists. */
const ALLOW_LOOPBACK = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_TIMEOUT_MS: '2000' };

const PUSH = { title: 'Door', subtitle: 'Front', body: 'opened at 21:04' };

describe('a device asks for a push notification: @push, PUT /push (netpie reference §3.1, §5.8)', () => {
  let stack: Stack;
  let server: WebhookServer;
  before(async () => {
    stack = await startStack({ env: ALLOW_LOOPBACK });
  });
  after(() => stack.stop());
  beforeEach(async () => {
    server = await startWebhookServer();
  });
  afterEach(() => server.close());

  /** A device whose DEVICE.PUSH trigger posts the push to the test server as JSON. */
  async function deviceForwardingPushes(): Promise<TestDevice> {
    const device = await aDevice(stack, { projectid: `p-${randomUUID().slice(0, 8)}` });
    const hook = await stack.admin('PUT', `/v2/admin/projects/${device.projectid}/hooks/notify`, {
      body: {
        type: 'WEBHOOK',
        config: { method: 'POST', uri: `${server.url}/notify`, body: '{"device":"{{$ALIAS}}","event":"{{$EVENT}}","title":"{{$NEW.title}}","subtitle":"{{$NEW.subtitle}}","text":"{{$NEW.body}}"}' },
      },
    });
    expect(hook.status, hook.text).to.equal(200);
    const triggers = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/triggers`, { body: { trigger: [{ event: 'DEVICE.PUSH', action: 'notify' }] } });
    expect(triggers.status, triggers.text).to.equal(200);
    return device;
  }

  const forwarded = (device: TestDevice) => ({ device: device.alias, event: 'DEVICE.PUSH', title: PUSH.title, subtitle: PUSH.subtitle, text: PUSH.body });

  for (const protocolVersion of [4, 5] as const) {
    it(`MQTT ${protocolVersion === 4 ? '3.1.1' : '5'}: @push runs the device's DEVICE.PUSH triggers and the connection stays up`, async () => {
      const device = await deviceForwardingPushes();
      const client = await connectDevice(stack.mqttUrl, device, { protocolVersion });
      try {
        await client.publishAsync('@push', JSON.stringify(PUSH), { qos: 1 });

        const [request] = await server.waitFor(1);
        expect(JSON.parse(request.body)).to.deep.equal(forwarded(device));
        expect(client.connected).to.equal(true);
      } finally {
        await endAll(client);
      }
    });
  }

  it('MQTT: a malformed @push is told on @private/error with the REST error body, runs nothing, and does not disconnect', async () => {
    const device = await deviceForwardingPushes();
    const client = await connectDevice(stack.mqttUrl, device);
    try {
      await client.subscribeAsync('@private/#');
      for (const [payload, code] of [
        ['not json', 'INVALID_JSON'],
        [JSON.stringify({ title: 'no body' }), 'INVALID_BODY'],
        [JSON.stringify({ ...PUSH, colour: 'red' }), 'INVALID_BODY'],
        [JSON.stringify({ ...PUSH, body: 'x'.repeat(9000) }), 'PAYLOAD_TOO_LARGE'],
      ] as const) {
        const notice = nextMessage(client, (topic) => topic === '@private/error');
        await client.publishAsync('@push', payload, { qos: 1 });
        expect(JSON.parse((await notice).payload).code, payload.slice(0, 40)).to.equal(code);
      }

      await sleep(300);
      expect(server.received).to.have.length(0);
      expect(client.connected).to.equal(true);
    } finally {
      await endAll(client);
    }
  });

  it('REST: PUT /v2/device/push and /device/push answer 200 and run the trigger each', async () => {
    const device = await deviceForwardingPushes();

    const v2 = await asDevice(stack, device)('PUT', '/v2/device/push', { body: PUSH });
    const v1 = await asDevice(stack, device)('PUT', '/device/push', { body: PUSH });

    expect(v2.status, v2.text).to.equal(200);
    expect(v2.body).to.deep.equal({ status: 200, message: 'push accepted' });
    expect(v1.status, v1.text).to.equal(200);
    const requests = await server.waitFor(2);
    expect(requests.map((r) => JSON.parse(r.body))).to.deep.equal([forwarded(device), forwarded(device)]);
  });

  it('REST: a push without a title, with an unknown member or not JSON is 400, and runs nothing', async () => {
    const device = await deviceForwardingPushes();
    const rest = asDevice(stack, device);

    expectError(await rest('PUT', '/v2/device/push', { body: { body: 'no title' } }), 400, 'INVALID_BODY');
    expectError(await rest('PUT', '/v2/device/push', { body: { ...PUSH, extra: 1 } }), 400, 'INVALID_BODY');
    expectError(await rest('PUT', '/v2/device/push', { body: 'title=x', contentType: 'application/json' }), 400, 'INVALID_JSON');

    await sleep(300);
    expect(server.received).to.have.length(0);
  });

  it('CoAP: PUT /push answers 2.04 and runs the trigger', async () => {
    const device = await deviceForwardingPushes();

    const res = await coapAs(stack.coapUrl, device)('PUT', '/push', { payload: JSON.stringify(PUSH) });

    expect(res.code).to.equal('2.04');
    expect(res.body).to.deep.equal({ message: 'push accepted' });
    const [request] = await server.waitFor(1);
    expect(JSON.parse(request.body)).to.deep.equal(forwarded(device));
  });

  it('a push of a device without a DEVICE.PUSH trigger is accepted and goes nowhere', async () => {
    const device = await aDevice(stack);

    const res = await asDevice(stack, device)('PUT', '/v2/device/push', { body: PUSH });

    expect(res.status).to.equal(200);
    await sleep(300);
    expect(server.received).to.have.length(0);
  });
});
