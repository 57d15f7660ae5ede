import { expect } from 'chai';
import { aDevice } from '../../helpers/devices';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/**
 * Writes of one device that arrive together are stored together (src/shadows/write-queue.ts): each still answers
 * as if it had been written alone, in its turn, and one refused write takes nothing else with it.
 */
describe('concurrent writes of one shadow (PUT /v2/device/shadow/data)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('applies every one of 40 concurrent writes: each its own rev, the shadow holding all of them', async () => {
    const device = await aDevice(stack);
    const client = asDevice(stack, device);

    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => client('PUT', '/v2/device/shadow/data', { body: { data: { [`f${i}`]: i, last: i } } })),
    );

    replies.forEach((res) => expect(res.status, res.text).to.equal(200));
    const revs = replies.map((res) => res.body.rev as number).sort((a, b) => a - b);
    expect(revs).to.deep.equal(Array.from({ length: 40 }, (_, i) => i + 1));
    const shadow = (await client('GET', '/v2/device/shadow/data')).body;
    expect(shadow.rev).to.equal(40);
    for (let i = 0; i < 40; i++) expect(shadow.data[`f${i}`]).to.equal(i);
    // The write answered with the highest rev is the one whose `last` the shadow keeps.
    const newest = replies.find((res) => res.body.rev === 40)!;
    expect(shadow.data.last).to.equal(newest.body.data.last);
  });

  it('refuses a write that would make the shadow too large on its own, the writes around it applied', async () => {
    const device = await aDevice(stack);
    const client = asDevice(stack, device);
    const big = 'x'.repeat(40 * 1024);

    const replies = await Promise.all([
      client('PUT', '/v2/device/shadow/data', { body: { data: { a: big } } }),
      client('PUT', '/v2/device/shadow/data', { body: { data: { b: big } } }),
      client('PUT', '/v2/device/shadow/data', { body: { data: { c: 1 } } }),
    ]);

    // a and b fit alone but not together: whichever comes second is refused.
    const refused = replies.filter((res) => res.status !== 200);
    expect(refused).to.have.length(1);
    expectError(refused[0], 413, 'SHADOW_TOO_LARGE');
    const shadow = (await client('GET', '/v2/device/shadow/data')).body;
    expect(shadow.rev).to.equal(2);
    expect(shadow.data.c).to.equal(1);
    expect(Object.keys(shadow.data).filter((k) => k === 'a' || k === 'b')).to.have.length(1);
  });
});
