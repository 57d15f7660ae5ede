import { expect } from 'chai';
import { createFairSlots, SlotRefusedError } from '../../src/ratelimit/fair-slots';

const settle = () => new Promise((r) => setImmediate(r));

describe('fair slots (issue 10)', () => {
  it('gives a tenant at most perTenant slots, and a freed slot to the tenant that holds the fewest', async () => {
    const slots = createFairSlots({ slots: 2, perTenant: 2, queuePerTenant: 10, maxWaitMs: Infinity });
    const order: string[] = [];
    const hostile = [0, 1, 2, 3].map(() => slots.acquire('hostile').then((release) => (order.push('hostile'), release)));
    await settle();
    const victim = slots.acquire('victim').then((release) => (order.push('victim'), release));
    await settle();
    expect(order).to.deep.equal(['hostile', 'hostile']);

    (await hostile[0])();
    await settle();
    expect(order).to.deep.equal(['hostile', 'hostile', 'victim']);
    expect(slots.stats()).to.deep.equal({ running: 2, waiting: 2 });
    (await victim)();
    (await hostile[1])();
    await Promise.all(hostile.slice(2)).then((releases) => releases.forEach((release) => release()));
    expect(slots.stats()).to.deep.equal({ running: 0, waiting: 0 });
  });

  it('takes turns between tenants that hold as many slots, the least recently served first', async () => {
    const slots = createFairSlots({ slots: 1, perTenant: 1, queuePerTenant: 10, maxWaitMs: Infinity });
    const order: string[] = [];
    const first = await slots.acquire('a');
    const calls = ['a', 'a', 'a', 'b', 'b', 'c'].map((t) => slots.acquire(t).then((release) => {
      order.push(t);
      release();
    }));
    first();
    await Promise.all(calls);
    // `a` was just served: the others go first, then each in turn.
    expect(order).to.deep.equal(['b', 'c', 'a', 'b', 'a', 'a']);
  });

  it('refuses at once beyond the tenant queue, and after maxWaitMs of waiting', async () => {
    const slots = createFairSlots({ slots: 1, perTenant: 1, queuePerTenant: 1, maxWaitMs: 50 });
    const release = await slots.acquire('a');
    const waiting = slots.acquire('a');
    const refused = await slots.acquire('a').catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(SlotRefusedError).with.property('reason', 'queue-full');
    expect(await waiting.catch((err: unknown) => err)).to.be.instanceOf(SlotRefusedError).with.property('reason', 'wait-too-long');
    release();
    expect(slots.stats()).to.deep.equal({ running: 0, waiting: 0 });
  });

  it('drops a waiting call whose signal aborts, with the signal\'s reason', async () => {
    const slots = createFairSlots({ slots: 1, perTenant: 1, queuePerTenant: 5, maxWaitMs: Infinity });
    const release = await slots.acquire('a');
    const gone = new AbortController();
    const waiting = slots.acquire('b', gone.signal);
    gone.abort(new Error('client went away'));
    expect(await waiting.catch((err: Error) => err.message)).to.equal('client went away');
    release();
    expect(slots.stats()).to.deep.equal({ running: 0, waiting: 0 });
    (await slots.acquire('b'))();
  });
});
