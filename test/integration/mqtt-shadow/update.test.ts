import { expect } from 'chai';
import { aGroup } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { GET, GET_RESPONSE, pointsOf, restShadow, shadowSession, UPDATE, UPDATED } from '../../helpers/mqtt-shadow';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

const MINUTE = 60_000;

describe('MQTT @shadow/data/update', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('merges into the shadow by default and tells the device on @shadow/data/updated, deviceid then data first', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { temp: 20, config: { mode: 'eco', level: 1 } } }, UPDATED);

      const updated = await session.ask(UPDATE, { data: { humid: 60, config: { level: 2 } } }, UPDATED);

      expect(updated.raw.startsWith(`{"deviceid":"${device.deviceid}","data":{"humid":60,`), updated.raw).to.equal(true);
      const shadow = await restShadow(stack, device);
      expect(shadow.data).to.deep.equal({ temp: 20, humid: 60, config: { mode: 'eco', level: 2 } });
      expect(updated.body).to.deep.equal({
        deviceid: device.deviceid,
        data: { humid: 60, config: { level: 2 } },
        rev: 2,
        modified: shadow.modified,
        timestamp: shadow.timestamp,
      });
      expect(Object.keys(updated.body)).to.deep.equal(['deviceid', 'data', 'rev', 'modified', 'timestamp']);
    } finally {
      await session.end();
    }
  });

  it('overwrites the whole shadow with "merged": false', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { a: 1, b: { c: 2 } } }, UPDATED);

      const updated = await session.ask(UPDATE, { data: { b: { d: 3 } }, merged: false }, UPDATED);

      expect(updated.body.data).to.deep.equal({ b: { d: 3 } });
      expect((await restShadow(stack, device)).data).to.deep.equal({ b: { d: 3 } });
    } finally {
      await session.end();
    }
  });

  it('deletes members set to null, nested ones too, and passes the nulls on in @shadow/data/updated', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { a: 1, gone: true, nest: { keep: 1, drop: 2 } } }, UPDATED);

      const updated = await session.ask(UPDATE, { data: { gone: null, nest: { drop: null } } }, UPDATED);

      expect(updated.body.data).to.deep.equal({ gone: null, nest: { drop: null } });
      expect((await restShadow(stack, device)).data).to.deep.equal({ a: 1, nest: { keep: 1 } });
    } finally {
      await session.end();
    }
  });

  it('takes the data time from "timestamp", absolute or relative to now like REST', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const at = Date.now() - 10 * MINUTE;
      const absolute = await session.ask(UPDATE, { data: { t: 1 }, timestamp: at }, UPDATED);
      expect(absolute.body.timestamp).to.equal(at);

      const before = Date.now();
      const relative = await session.ask(UPDATE, { data: { t: 2 }, timestamp: -MINUTE }, UPDATED);
      expect(relative.body.timestamp).to.be.within(before - MINUTE, Date.now() - MINUTE);
      expect((await restShadow(stack, device)).timestamp).to.equal(relative.body.timestamp);
    } finally {
      await session.end();
    }
  });

  it('leaves the shadow alone for a back-dated write and sends nothing, but records its points', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { temp: 25 } }, UPDATED);
      const from = session.seen.length;
      const old = Date.now() - 30 * MINUTE;

      await session.client.publishAsync(UPDATE, JSON.stringify({ data: { temp: 10 }, timestamp: old }));

      expect(await session.messagesUntilSettled(from)).to.deep.equal([]);
      expect((await restShadow(stack, device)).data).to.deep.equal({ temp: 25 });
      expect((await restShadow(stack, device)).rev).to.equal(1);
      expect((await pointsOf(stack, device, 'temp')).map((p) => p[1])).to.deep.equal([10, 25]);
    } finally {
      await session.end();
    }
  });

  it('records its points for the data-store API, and none with "store": false', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const at = Date.now() - MINUTE;
      await session.ask(UPDATE, { data: { temp: 21.5, env: { ok: true }, label: 'x' }, timestamp: at }, UPDATED);
      await session.ask(UPDATE, { data: { temp: 99 }, store: false }, UPDATED);

      expect(await pointsOf(stack, device, 'temp')).to.deep.equal([[at, 21.5]]);
      expect(await pointsOf(stack, device, 'env.ok')).to.deep.equal([[at, 1]]);
      expect((await restShadow(stack, device)).data.temp).to.equal(99);
    } finally {
      await session.end();
    }
  });

  it('accepts "trigger" and "store" like REST', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const updated = await session.ask(UPDATE, { data: { x: 1 }, trigger: false, store: true, merged: true }, UPDATED);

      expect(updated.body.data).to.deep.equal({ x: 1 });
    } finally {
      await session.end();
    }
  });

  it('tells the writing device and never a groupmate, whatever the groupmate subscribes to', async () => {
    const [device, groupmate] = await aGroup(stack, 2);
    const session = await shadowSession(stack, device);
    const other = await connectDevice(stack.mqttUrl, groupmate);
    try {
      // The groupmate listens everywhere it may: its replies, the whole group, and its own updates.
      await other.subscribeAsync(['@private/#', '@msg/#', UPDATED]);
      const seenByGroupmate = collect(other);

      await session.ask(UPDATE, { data: { secret: 42 } }, UPDATED);
      await session.ask(UPDATE, { data: { secret: 43 } }, UPDATED);

      const own = nextMessage(other, (t) => t === GET_RESPONSE);
      await other.publishAsync(GET, '');
      await own;
      expect(seenByGroupmate.map((m) => m.topic)).to.deep.equal([GET_RESPONSE]);
      expect(seenByGroupmate[0].payload).to.not.contain('secret');
    } finally {
      await endAll(session.client, other);
    }
  });

  it('reaches subscribers of @shadow/data/updated only, not of @private/#', async () => {
    const [device] = await aGroup(stack, 1);
    const listener = await connectDevice(stack.mqttUrl, device);
    try {
      await listener.subscribeAsync(['@private/#', '@msg/#']);
      const seen = collect(listener);

      await listener.publishAsync(UPDATE, JSON.stringify({ data: { a: 1 } }));
      const reply = nextMessage(listener, (t) => t === GET_RESPONSE);
      await listener.publishAsync(GET, '');
      expect(JSON.parse((await reply).payload).data).to.deep.equal({ a: 1 });

      expect(seen.map((m) => m.topic)).to.deep.equal([GET_RESPONSE]);
    } finally {
      await endAll(listener);
    }
  });

  it('is applied with the REST rules: a REST read sees an MQTT write and MQTT sees a REST write', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { mqtt: 1 } }, UPDATED);
      const rest = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { rest: 2 } } });
      expect(rest.status).to.equal(200);

      expect((await session.get()).body).to.deep.include({ data: { mqtt: 1, rest: 2 }, rev: 2 });
    } finally {
      await session.end();
    }
  });
});
