import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { coapAs, CoapResponse, expectCoapError } from '../../helpers/coap';
import { aDevice, aGroup } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

/** The ETag option of a reply, as bytes (node-coap hands it over as text; our revs here are below 0x80). */
const etagOf = (res: CoapResponse) => Buffer.from(String(res.headers.ETag));

describe('desired state over CoAP (issue 25 §2)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('reads, merges (PUT) and overwrites (POST) /shadow/desired, with its own rev as ETag', async () => {
    const [device] = await aGroup(stack, 1);
    const coap = coapAs(stack.coapUrl, device);
    await coap('PUT', '/shadow/data', { payload: { data: { led: 'off' } } });

    const merged = await coap('PUT', '/shadow/desired', { payload: { data: { led: 'on', fan: 1 } } });
    const overwritten = await coap('POST', '/shadow/desired', { payload: { data: { led: 'off', fan: 2 } } });
    const read = await coap('GET', '/shadow/desired');

    expect(merged.code, merged.text).to.equal('2.04');
    expect(merged.body).to.deep.include({ desired: { led: 'on', fan: 1 }, delta: { led: 'on', fan: 1 }, rev: 1 });
    expect(overwritten.code, overwritten.text).to.equal('2.04');
    expect(read.code, read.text).to.equal('2.05');
    expect(read.body).to.deep.include({ deviceid: device.deviceid, desired: { led: 'off', fan: 2 }, delta: { fan: 2 }, rev: 2, datarev: 1 });
    expect(etagOf(read)).to.deep.equal(Buffer.of(2));
  });

  it('writes the desired document of a device of the same group with ?alias=, and refuses one of another group with 4.03', async () => {
    const [device, groupmate] = await aGroup(stack, 2);
    const stranger = await aDevice(stack, { projectid: device.projectid });

    const ok = await coapAs(stack.coapUrl, groupmate)('PUT', '/shadow/desired', { query: [`alias=${device.alias}`], payload: { data: { led: 'on' } } });
    const refused = await coapAs(stack.coapUrl, stranger)('PUT', '/shadow/desired', { query: [`alias=${device.alias}`], payload: { data: { led: 'off' } } });

    expect(ok.code, ok.text).to.equal('2.04');
    expectCoapError(refused, '4.03', 403, 'OTHER_GROUP');
    expect((await coapAs(stack.coapUrl, device)('GET', '/shadow/desired')).body.desired).to.deep.equal({ led: 'on' });
  });

  it('answers a stale If-Match with 4.12 REV_MISMATCH, changing nothing', async () => {
    const [device] = await aGroup(stack, 1);
    const coap = coapAs(stack.coapUrl, device);
    await coap('PUT', '/shadow/desired', { payload: { data: { a: 1 } } });

    const stale = await coap('PUT', '/shadow/desired', { payload: { data: { a: 2 } }, options: { 'If-Match': Buffer.of(0) } });

    expectCoapError(stale, '4.12', 412, 'REV_MISMATCH');
    expect((await coap('GET', '/shadow/desired')).body).to.deep.include({ desired: { a: 1 }, rev: 1 });
  });

  it('pushes the delta to the device on MQTT after a groupmate\'s CoAP write', async () => {
    const [device, groupmate] = await aGroup(stack, 2);
    let client: MqttClient | undefined;
    try {
      client = await connectDevice(stack.mqttUrl, device);
      await client.subscribeAsync('@shadow/desired/delta');
      const pushed = nextMessage(client, (t) => t === '@shadow/desired/delta');

      await coapAs(stack.coapUrl, groupmate)('PUT', '/shadow/desired', { query: [`alias=${device.alias}`], payload: { data: { led: 'on' } } });

      expect(JSON.parse((await pushed).payload)).to.deep.include({ delta: { led: 'on' }, rev: 1 });
    } finally {
      await endAll(client);
    }
  });
});
