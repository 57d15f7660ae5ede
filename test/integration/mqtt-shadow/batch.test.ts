import { expect } from 'chai';
import { aGroup } from '../../helpers/devices';
import {
  BATCH,
  BATCH_RESPONSE,
  expectErrorReply,
  GET_RESPONSE,
  pointsOf,
  restShadow,
  shadowSession,
  UPDATED,
  whatAGroupmateSees,
} from '../../helpers/mqtt-shadow';
import { startStack, Stack } from '../../helpers/stack';

const MINUTE = 60_000;

/** `count` items one second apart, ending now, with temp 1..count. */
const items = (count: number) => Array.from({ length: count }, (_, i) => ({ data: { temp: i + 1 }, ts: (i + 1 - count) * 1000 }));

describe('MQTT @shadow/batch/update', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('answers an ackid on @private/shadow/batch/update/response with total, mints and maxts', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const t0 = Date.now() - 10 * MINUTE;
      const batch = [
        { data: { temp: 25.9, humid: 9.6 }, ts: t0 },
        { data: { temp: 26.8 }, ts: t0 + 2 * MINUTE },
        { data: { temp: 24.5, humid: 9.1 }, timestamp: t0 + MINUTE },
      ];

      const reply = await session.ask(BATCH, { ackid: 1839, batch }, BATCH_RESPONSE);

      expect(reply.raw.startsWith('{"ackid":1839,"total":3,"mints":'), reply.raw).to.equal(true);
      expect(reply.body).to.deep.equal({ ackid: 1839, total: 3, mints: t0, maxts: t0 + 2 * MINUTE, applied: 3 });
      const shadow = await restShadow(stack, device);
      expect(shadow).to.deep.include({ data: { temp: 26.8, humid: 9.1 }, rev: 1, timestamp: t0 + 2 * MINUTE });
    } finally {
      await session.end();
    }
  });

  it('echoes a string ackid, and resolves relative ts against now', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const before = Date.now();

      const reply = await session.ask(BATCH, { ackid: 'a-7', batch: [{ data: { x: 1 }, ts: -90_000 }, { data: { x: 2 }, ts: 0 }] }, BATCH_RESPONSE);

      const after = Date.now();
      expect(reply.body).to.include({ ackid: 'a-7', total: 2, applied: 2 });
      expect(reply.body.maxts).to.be.within(before, after);
      expect(reply.body.maxts - reply.body.mints).to.equal(90_000);
    } finally {
      await session.end();
    }
  });

  it('merges by default and overwrites with "merged": false', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(BATCH, { ackid: 1, batch: [{ data: { a: 1, n: { x: 1 } }, ts: -2000 }, { data: { n: { y: 2 } }, ts: -1000 }] }, BATCH_RESPONSE);
      expect((await restShadow(stack, device)).data).to.deep.equal({ a: 1, n: { x: 1, y: 2 } });

      await session.ask(BATCH, { ackid: 2, merged: false, batch: [{ data: { b: 1 }, ts: -500 }, { data: { c: 2 }, ts: 0 }] }, BATCH_RESPONSE);
      expect((await restShadow(stack, device)).data).to.deep.equal({ c: 2 });
    } finally {
      await session.end();
    }
  });

  it('sends no reply without an ackid, as NETPIE, and still applies the batch (announced on @shadow/data/updated, as every write)', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const from = session.seen.length;

      await session.client.publishAsync(BATCH, JSON.stringify({ batch: items(3) }));

      expect((await session.messagesUntilSettled(from)).map((m) => m.topic)).to.deep.equal([UPDATED]);
      expect((await restShadow(stack, device)).data).to.deep.equal({ temp: 3 });
    } finally {
      await session.end();
    }
  });

  it('takes 100 items', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const reply = await session.ask(BATCH, { ackid: 100, batch: items(100) }, BATCH_RESPONSE);

      expect(reply.body).to.include({ ackid: 100, total: 100, applied: 100 });
      expect((await restShadow(stack, device)).data).to.deep.equal({ temp: 100 });
      expect(await pointsOf(stack, device, 'temp')).to.have.length(100);
    } finally {
      await session.end();
    }
  });

  it('refuses 101 items with NETPIE\'s errcode 429 body and saves nothing', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const reply = await session.ask(BATCH, { ackid: 140, batch: items(101) }, BATCH_RESPONSE);

      expectErrorReply(reply, 400, 'BATCH_TOO_LARGE');
      expect(reply.body).to.include({ ackid: 140, errcode: 429, message: 'batch size exceeds 100', inputsize: 101 });
      expect(reply.raw.startsWith('{"ackid":140,'), reply.raw).to.equal(true);
      expect((await restShadow(stack, device)).rev).to.equal(0);
      expect(await pointsOf(stack, device, 'temp')).to.deep.equal([]);
    } finally {
      await session.end();
    }
  });

  it('sends the 101-item error even without an ackid: errors are never silent', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const reply = await session.ask(BATCH, { batch: items(101) }, BATCH_RESPONSE);

      expectErrorReply(reply, 400, 'BATCH_TOO_LARGE');
      expect(reply.body).to.include({ errcode: 429, inputsize: 101 }).and.not.have.property('ackid');
    } finally {
      await session.end();
    }
  });

  it('stores the points of a back-dated batch but leaves the shadow alone (applied 0)', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(BATCH, { ackid: 1, batch: [{ data: { temp: 30 }, ts: 0 }] }, BATCH_RESPONSE);
      const t0 = Date.now() - 20 * MINUTE;

      const reply = await session.ask(BATCH, { ackid: 2, batch: [{ data: { temp: 1 }, ts: t0 }, { data: { temp: 2 }, ts: t0 + MINUTE }] }, BATCH_RESPONSE);

      expect(reply.body).to.include({ ackid: 2, total: 2, applied: 0 });
      expect(await restShadow(stack, device)).to.deep.include({ data: { temp: 30 }, rev: 1 });
      expect((await pointsOf(stack, device, 'temp')).map((p) => p[1])).to.deep.equal([1, 2, 30]);
    } finally {
      await session.end();
    }
  });

  it('records every item as points, at its own time, for the data-store API', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const t0 = Date.now() - 5 * MINUTE;
      const batch = [0, 1, 2].map((i) => ({ data: { temp: 20 + i, env: { humid: 50 + i } }, ts: t0 + i * MINUTE }));

      await session.ask(BATCH, { ackid: 'q', batch }, BATCH_RESPONSE);

      expect(await pointsOf(stack, device, 'temp')).to.deep.equal([[t0, 20], [t0 + MINUTE, 21], [t0 + 2 * MINUTE, 22]]);
      expect(await pointsOf(stack, device, 'env.humid')).to.deep.equal([[t0, 50], [t0 + MINUTE, 51], [t0 + 2 * MINUTE, 52]]);
    } finally {
      await session.end();
    }
  });

  it('answers only the device that sent it', async () => {
    const seen = await whatAGroupmateSees(stack, await aGroup(stack, 2), async (session) => {
      await session.ask(BATCH, { ackid: 1, batch: items(2) }, BATCH_RESPONSE);
      await session.ask(BATCH, { ackid: 2, batch: items(101) }, BATCH_RESPONSE);
    });

    expect(seen.map((m) => m.topic)).to.deep.equal([GET_RESPONSE]);
  });
});
