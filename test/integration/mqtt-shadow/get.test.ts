import { expect } from 'chai';
import { aGroup } from '../../helpers/devices';
import { nextMessage } from '../../helpers/mqtt';
import { GET, GET_RESPONSE, restShadow, shadowSession, UPDATE, whatAGroupmateSees } from '../../helpers/mqtt-shadow';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

describe('MQTT @shadow/data/get', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('answers a shadow never written on @private/shadow/data/get/response, deviceid then data first', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const reply = await session.get();

      expect(reply.raw.startsWith(`{"deviceid":"${device.deviceid}","data":{`), reply.raw).to.equal(true);
      expect(reply.body).to.deep.equal({ deviceid: device.deviceid, data: {}, rev: 0, modified: 0, timestamp: 0 });
    } finally {
      await session.end();
    }
  });

  it('answers the whole shadow as REST wrote it, with the same metadata REST reads', async () => {
    const [device] = await aGroup(stack, 1);
    const rest = asDevice(stack, device);
    expect((await rest('PUT', '/v2/device/shadow/data', { body: { data: { temp: 21.5, config: { mode: 'eco' } } } })).status).to.equal(200);
    expect((await rest('PUT', '/v2/device/shadow/data', { body: { data: { config: { level: 2 } } } })).status).to.equal(200);
    const session = await shadowSession(stack, device);
    try {
      const reply = await session.get();

      const { status, ...expected } = await restShadow(stack, device);
      expect(status).to.equal(200);
      expect(reply.body).to.deep.equal(expected);
      expect(reply.body).to.deep.include({ data: { temp: 21.5, config: { mode: 'eco', level: 2 } }, rev: 2 });
    } finally {
      await session.end();
    }
  });

  it('ignores a payload, which NETPIE leaves empty', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const reply = await session.ask(GET, '{"whatever": true}', GET_RESPONSE);

      expect(reply.body).to.include({ deviceid: device.deviceid, rev: 0 });
    } finally {
      await session.end();
    }
  });

  it('serves the requests of a device in order: a get sent right after updates reads them', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const reply = nextMessage(session.client, (t) => t === GET_RESPONSE);

      // Not awaited one by one: they may reach the broker in one TCP segment.
      const sent = [1, 2, 3, 4, 5].map((n) => session.client.publishAsync(UPDATE, JSON.stringify({ data: { [`f${n}`]: n } })));
      sent.push(session.client.publishAsync(GET, ''));
      await Promise.all(sent);

      expect(JSON.parse((await reply).payload)).to.deep.include({ data: { f1: 1, f2: 2, f3: 3, f4: 4, f5: 5 }, rev: 5 });
    } finally {
      await session.end();
    }
  });

  it('acknowledges a QoS 1 and a QoS 2 request once it is served', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.client.publishAsync(UPDATE, JSON.stringify({ data: { q: 1 } }), { qos: 1 });
      expect((await restShadow(stack, device)).data).to.deep.equal({ q: 1 });

      await session.client.publishAsync(UPDATE, JSON.stringify({ data: { q: 2 } }), { qos: 2 });
      expect((await restShadow(stack, device)).data).to.deep.equal({ q: 2 });
    } finally {
      await session.end();
    }
  });

  it('answers only the device that asked, never a groupmate subscribed to @private/# and @msg/#', async () => {
    const [device, groupmate] = await aGroup(stack, 2);

    const seen = await whatAGroupmateSees(stack, [device, groupmate], async (session) => {
      await session.get();
      await session.get();
    });

    // Only the answer to the groupmate's own request, about the groupmate.
    expect(seen.map((m) => JSON.parse(m.payload).deviceid)).to.deep.equal([groupmate.deviceid]);
  });
});
