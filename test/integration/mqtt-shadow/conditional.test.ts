import { expect } from 'chai';
import { aGroup } from '../../helpers/devices';
import {
  BATCH,
  BATCH_RESPONSE,
  expectErrorReply,
  pointsOf,
  restShadow,
  shadowSession,
  UPDATE,
  UPDATE_RESPONSE,
  UPDATED,
} from '../../helpers/mqtt-shadow';
import { startStack, Stack } from '../../helpers/stack';

/**
 * Issue 25 §1 over MQTT, which has no headers: `rev` in the payload of `@shadow/data/update` and of a batch is the
 * write's If-Match. A failed condition is an error reply on the request's reply topic, like every shadow error.
 */
describe('MQTT conditional shadow writes (`rev` in the payload)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('applies an update whose `rev` is the shadow\'s, announced on @shadow/data/updated with the new rev', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { temp: 20 } }, UPDATED);
      const updated = await session.ask(UPDATE, { data: { temp: 21 }, rev: 1 }, UPDATED);
      expect(updated.body).to.deep.include({ data: { temp: 21 }, rev: 2 });
    } finally {
      await session.end();
    }
  });

  it('refuses a stale `rev` with 412 REV_MISMATCH on the reply topic: no change, no notice, no point', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { temp: 20 } }, UPDATED);
      await session.ask(UPDATE, { data: { temp: 21 } }, UPDATED);
      const from = session.seen.length;

      const reply = await session.ask(UPDATE, { data: { temp: 99, stale: 1 }, rev: 1 }, UPDATE_RESPONSE);

      expectErrorReply(reply, 412, 'REV_MISMATCH');
      expect(reply.body.rev).to.equal(2);
      const after = await session.messagesUntilSettled(from);
      expect(after.map((m) => m.topic)).to.deep.equal([UPDATE_RESPONSE]);
      expect(await restShadow(stack, device)).to.deep.include({ rev: 2, data: { temp: 21 } });
      expect(await pointsOf(stack, device, 'stale')).to.deep.equal([]);
      expect((await pointsOf(stack, device, 'temp')).map(([, v]) => v)).to.deep.equal([20, 21]);
    } finally {
      await session.end();
    }
  });

  it('takes `rev: 0` as "a shadow never written"', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const first = await session.ask(UPDATE, { data: { setup: 1 }, rev: 0 }, UPDATED);
      expect(first.body.rev).to.equal(1);
      expectErrorReply(await session.ask(UPDATE, { data: { setup: 2 }, rev: 0 }, UPDATE_RESPONSE), 412, 'REV_MISMATCH');
    } finally {
      await session.end();
    }
  });

  it('conditions a batch on the shadow before it; the error carries the batch\'s ackid', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { temp: 20 } }, UPDATED);
      const batch = { ackid: 'b1', batch: [{ data: { temp: 22 }, ts: 0 }] };

      const stale = await session.ask(BATCH, { ...batch, rev: 5 }, BATCH_RESPONSE);
      expectErrorReply(stale, 412, 'REV_MISMATCH');
      expect(stale.body).to.include({ ackid: 'b1', rev: 1 });

      const ok = await session.ask(BATCH, { ...batch, rev: 1 }, BATCH_RESPONSE);
      expect(ok.body).to.include({ ackid: 'b1', applied: 1 });
      expect((await restShadow(stack, device)).rev).to.equal(2);
    } finally {
      await session.end();
    }
  });

  it('refuses a `rev` that is not a whole number from 0 up with 400 INVALID_BODY', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      expectErrorReply(await session.ask(UPDATE, { data: { a: 1 }, rev: -1 }, UPDATE_RESPONSE), 400, 'INVALID_BODY');
    } finally {
      await session.end();
    }
  });
});
