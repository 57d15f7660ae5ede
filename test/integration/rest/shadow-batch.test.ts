import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { HttpClient } from '../../helpers/http';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** Spec 4.6 rule 2: below this a time is relative to now, in ms; from it up, absolute epoch ms. */
const THRESHOLD = 8_388_608_000;

describe('PUT and POST /v2/device/shadow/batch', () => {
  let stack: Stack;
  let client: HttpClient;
  let deviceid: string;
  before(async () => {
    stack = await startStack();
  });
  beforeEach(async () => {
    const device = await aDevice(stack);
    client = asDevice(stack, device);
    deviceid = device.deviceid;
  });
  after(() => stack.stop());

  const batch = (method: string, body: object) => client(method, '/v2/device/shadow/batch', { body });
  const shadow = async () => (await client('GET', '/v2/device/shadow/data')).body;

  it('replies {deviceid, response:{ackid, total, applied, mints, maxts}} with resolved times', async () => {
    const before = Date.now();

    const res = await batch('PUT', { ackid: 'ack-7', batch: [{ data: { a: 1 }, ts: -2_000 }, { data: { b: 2 }, ts: -1_000 }] });

    const after = Date.now();
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys('deviceid', 'response');
    expect(res.body.deviceid).to.equal(deviceid);
    expect(res.body.response).to.have.all.keys('ackid', 'total', 'applied', 'mints', 'maxts');
    expect(res.body.response).to.include({ ackid: 'ack-7', total: 2, applied: 2 });
    expect(res.body.response.mints).to.be.within(before - 2_000, after - 2_000);
    expect(res.body.response.maxts).to.be.within(before - 1_000, after - 1_000);
    expect(await shadow()).to.deep.include({ data: { a: 1, b: 2 }, timestamp: res.body.response.maxts });
  });

  it('leaves ackid out of the reply when the request has none, and echoes a numeric one', async () => {
    const without = await batch('PUT', { batch: [{ data: { a: 1 }, ts: 0 }] });
    const numeric = await batch('PUT', { ackid: 42, batch: [{ data: { a: 2 }, ts: 0 }] });

    expect(without.body.response).to.not.have.property('ackid');
    expect(numeric.body.response.ackid).to.equal(42);
  });

  it('takes ts 0 as now and a positive ts as that far ahead', async () => {
    const before = Date.now();

    const res = await batch('PUT', { batch: [{ data: { now: true }, ts: 0 }, { data: { later: true }, ts: 60_000 }] });

    const after = Date.now();
    expect(res.body.response.mints).to.be.within(before, after);
    expect(res.body.response.maxts).to.be.within(before + 60_000, after + 60_000);
  });

  it('takes ts from 8388608000 up as absolute and 8388607999 as relative', async () => {
    const absolute = await batch('PUT', { batch: [{ data: { a: 1 }, ts: THRESHOLD }] });
    const recent = Date.now() - 3_000;
    const later = await batch('PUT', { batch: [{ data: { a: 2 }, ts: recent }] });
    const relative = await batch('PUT', { batch: [{ data: { a: 3 }, ts: THRESHOLD - 1 }] });

    expect(absolute.body.response).to.include({ applied: 1, mints: THRESHOLD, maxts: THRESHOLD });
    expect(later.body.response).to.include({ applied: 1, mints: recent, maxts: recent });
    // 8388607999 ms from now is about 97 days ahead: past the 24 hours allowed.
    expect(relative.status).to.equal(400);
    expect(relative.body.code).to.equal('INVALID_BATCH_ITEM');
  });

  it('accepts "timestamp" as the other name of "ts"', async () => {
    const res = await batch('PUT', { batch: [{ data: { a: 1 }, timestamp: THRESHOLD + 5 }] });

    expect(res.body.response).to.include({ applied: 1, mints: THRESHOLD + 5 });
  });

  it('applies items in time order whatever their order in the array, ending with the newest values', async () => {
    const res = await batch('PUT', {
      batch: [
        { data: { v: 'newest', only3: true }, ts: -1_000 },
        { data: { v: 'oldest', only1: true }, ts: -3_000 },
        { data: { v: 'middle', only2: true }, ts: -2_000 },
      ],
    });

    expect(res.body.response).to.include({ total: 3, applied: 3 });
    expect((await shadow()).data).to.deep.equal({ v: 'newest', only1: true, only2: true, only3: true });
  });

  it('with POST overwrites item by item, so the shadow ends as the newest item', async () => {
    await client('PUT', '/v2/device/shadow/data', { body: { data: { old: 1 }, timestamp: -10_000 } });

    await batch('POST', { batch: [{ data: { c: 3 }, ts: -1_000 }, { data: { a: 1 }, ts: -3_000 }, { data: { b: 2 }, ts: -2_000 }] });

    expect((await shadow()).data).to.deep.equal({ c: 3 });
  });

  it('merges with POST when the body says merged:true', async () => {
    await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1, b: 1 }, timestamp: -10_000 } });

    await batch('POST', { merged: true, batch: [{ data: { a: 2 }, ts: -1_000 }] });

    expect((await shadow()).data).to.deep.equal({ a: 2, b: 1 });
  });

  it('overwrites with PUT when the body says merged:false', async () => {
    await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1, b: 1 }, timestamp: -10_000 } });

    await batch('PUT', { merged: false, batch: [{ data: { a: 2 }, ts: -1_000 }] });

    expect((await shadow()).data).to.deep.equal({ a: 2 });
  });

  it('deletes members set to null, nested ones too', async () => {
    await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1, o: { x: 1, y: 1 } }, timestamp: -10_000 } });

    await batch('PUT', { batch: [{ data: { a: null, o: { x: null } }, ts: -1_000 }] });

    expect((await shadow()).data).to.deep.equal({ o: { y: 1 } });
  });

  it('accepts 100 items', async () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ data: { [`k${i}`]: i, last: i }, ts: -100 + i }));

    const res = await batch('PUT', { batch: items });

    expect(res.body.response).to.include({ total: 100, applied: 100 });
    const { data } = await shadow();
    expect(Object.keys(data)).to.have.length(101);
    expect(data.last).to.equal(99);
  });

  it('applies nothing when every item is older than the shadow: applied 0, shadow unchanged', async () => {
    const written = await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });

    const res = await batch('PUT', { batch: [{ data: { a: 2 }, ts: -5_000 }, { data: { b: 2 }, ts: -10_000 }] });

    expect(res.status).to.equal(200);
    expect(res.body.response).to.include({ total: 2, applied: 0 });
    expect(await shadow()).to.deep.include({ data: { a: 1 }, rev: written.body.rev, timestamp: written.body.timestamp });
  });

  it('applies only the items newer than the shadow', async () => {
    await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 }, timestamp: -5_000 } });

    const res = await batch('PUT', { batch: [{ data: { old: true }, ts: -9_000 }, { data: { fresh: true }, ts: -1_000 }] });

    expect(res.body.response).to.include({ total: 2, applied: 1 });
    expect((await shadow()).data).to.deep.equal({ a: 1, fresh: true });
  });

  it('writes the shadow of a device of the group named by ?alias=', async () => {
    const [caller, target] = await aGroup(stack, 2);

    const res = await asDevice(stack, caller)('PUT', `/v2/device/shadow/batch?alias=${target.alias}`, {
      body: { batch: [{ data: { via: 'alias' }, ts: 0 }] },
    });

    expect(res.body.deviceid).to.equal(target.deviceid);
    expect((await asDevice(stack, target)('GET', '/v2/device/shadow/data')).body.data).to.deep.equal({ via: 'alias' });
  });
});
