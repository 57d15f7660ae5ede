import { expect } from 'chai';
import { aDevice } from '../../helpers/devices';
import { HttpClient } from '../../helpers/http';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** Spec 4.6 rule 2: below this a time is relative to now, in ms; from it up, absolute epoch ms. */
const THRESHOLD = 8_388_608_000;
const HOUR = 3_600_000;

describe('timestamps of shadow writes (PUT /v2/device/shadow/data)', () => {
  let stack: Stack;
  let client: HttpClient;
  before(async () => {
    stack = await startStack();
  });
  beforeEach(async () => {
    client = asDevice(stack, await aDevice(stack));
  });
  after(() => stack.stop());

  const write = (data: object, timestamp?: number) =>
    client('PUT', '/v2/device/shadow/data', { body: timestamp === undefined ? { data } : { data, timestamp } });

  it('stamps a write without timestamp with the server time', async () => {
    const before = Date.now();
    const res = await write({ a: 1 });
    expect(res.body.timestamp).to.be.within(before, Date.now());
  });

  it('takes a negative timestamp as that many ms in the past', async () => {
    const before = Date.now();

    const res = await write({ a: 1 }, -60_000);

    expect(res.body.applied).to.equal(true);
    expect(res.body.timestamp).to.be.within(before - 60_000, Date.now() - 60_000);
    expect(res.body.modified).to.be.within(before, Date.now());
  });

  it('takes a small positive timestamp as that many ms in the future', async () => {
    const before = Date.now();

    const res = await write({ a: 1 }, HOUR);

    expect(res.body.timestamp).to.be.within(before + HOUR, Date.now() + HOUR);
  });

  it('takes a timestamp of 8388608000 or more as absolute epoch ms', async () => {
    const absolute = Date.now() - 5_000;

    const atThreshold = await write({ a: 1 }, THRESHOLD);
    const recent = await write({ a: 2 }, absolute);

    expect(atThreshold.body).to.include({ applied: true, timestamp: THRESHOLD });
    expect(recent.body).to.include({ applied: true, timestamp: absolute });
  });

  it('takes 8388607999 as relative, which lands months ahead and is refused', async () => {
    expectError(await write({ a: 1 }, THRESHOLD - 1), 400, 'INVALID_TIMESTAMP');
  });

  it('does not apply a write older than the shadow: applied false, rev and data unchanged', async () => {
    const first = await write({ a: 1, b: { c: 1 } }, -1_000);

    const late = await write({ a: 2, b: { c: null } }, -10_000);

    expect(late.status).to.equal(200);
    expect(late.body).to.include({ applied: false, rev: first.body.rev, timestamp: first.body.timestamp });
    expect(late.body.data).to.deep.equal({ a: 1, b: { c: 1 } });
    const read = await client('GET', '/v2/device/shadow/data');
    expect(read.body).to.include({ rev: first.body.rev, timestamp: first.body.timestamp, modified: first.body.modified });
    expect(read.body.data).to.deep.equal({ a: 1, b: { c: 1 } });
  });

  it('does not apply an overwrite older than the shadow either', async () => {
    const first = await write({ a: 1 }, Date.now());

    const late = await client('POST', '/v2/device/shadow/data', { body: { data: { z: 1 }, timestamp: -60_000 } });

    expect(late.body).to.include({ applied: false, rev: first.body.rev });
    expect(late.body.data).to.deep.equal({ a: 1 });
  });

  it('applies a write newer than the shadow even when it arrives after an older one was refused', async () => {
    await write({ a: 1 }, -5_000);
    await write({ a: 0 }, -9_000);

    const res = await write({ a: 2 }, -1_000);

    expect(res.body).to.include({ applied: true, rev: 2 });
    expect(res.body.data).to.deep.equal({ a: 2 });
  });

  it('answers 400 INVALID_TIMESTAMP for more than 24 hours ahead, relative or absolute, and applies nothing', async () => {
    const first = await write({ a: 1 });

    const relative = await write({ a: 2 }, 24 * HOUR + 60_000);
    const absolute = await write({ a: 3 }, Date.now() + 25 * HOUR);

    expectError(relative, 400, 'INVALID_TIMESTAMP');
    expectError(absolute, 400, 'INVALID_TIMESTAMP');
    const read = await client('GET', '/v2/device/shadow/data');
    expect(read.body).to.include({ rev: first.body.rev });
    expect(read.body.data).to.deep.equal({ a: 1 });
  });

  it('answers 400 INVALID_BODY for a timestamp that is not an integer', async () => {
    for (const timestamp of [1.5, '1000', true, null]) {
      const res = await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 }, timestamp } });
      expectError(res, 400, 'INVALID_BODY');
      expect(res.body.message).to.include('timestamp');
    }
  });
});
