import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

describe('the shadow of another device of the group (?alias=)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('lets a device write the shadow of a device of its group, which then reads it as its own', async () => {
    const [caller, target] = await aGroup(stack, 2);

    const write = await asDevice(stack, caller)('PUT', `/v2/device/shadow/data?alias=${target.alias}`, { body: { data: { set: 'by caller' } } });
    const ownRead = await asDevice(stack, target)('GET', '/v2/device/shadow/data');
    const callerOwn = await asDevice(stack, caller)('GET', '/v2/device/shadow/data');

    expect(write.status).to.equal(200);
    expect(write.body).to.include({ deviceid: target.deviceid, rev: 1, applied: true });
    expect(ownRead.body.data).to.deep.equal({ set: 'by caller' });
    expect(callerOwn.body).to.include({ deviceid: caller.deviceid, rev: 0 });
  });

  it('lets a device read the shadow of a device of its group', async () => {
    const [caller, target] = await aGroup(stack, 2);
    await asDevice(stack, target)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 30 } } });

    const res = await asDevice(stack, caller)('GET', `/v2/device/shadow/data?alias=${encodeURIComponent(target.alias)}`);

    expect(res.status).to.equal(200);
    expect(res.body).to.include({ deviceid: target.deviceid, rev: 1 });
    expect(res.body.data).to.deep.equal({ temp: 30 });
  });

  it('overwrites through an alias with POST', async () => {
    const [caller, target] = await aGroup(stack, 2);
    await asDevice(stack, target)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });

    const res = await asDevice(stack, caller)('POST', `/v2/device/shadow/data?alias=${target.alias}`, { body: { data: { b: 2 } } });

    expect(res.body.data).to.deep.equal({ b: 2 });
  });

  it('treats the caller\'s own alias as the caller', async () => {
    const [caller] = await aGroup(stack, 1);

    const res = await asDevice(stack, caller)('PUT', `/v2/device/shadow/data?alias=${caller.alias}`, { body: { data: { me: true } } });

    expect(res.body).to.include({ deviceid: caller.deviceid });
  });

  it('finds an alias with spaces and non-ASCII letters', async () => {
    const [caller] = await aGroup(stack, 1);
    const target = await aDevice(stack, { projectid: caller.projectid, groupid: caller.groupid, alias: 'ห้องนั่งเล่น lamp' });

    const res = await asDevice(stack, caller)('GET', `/v2/device/shadow/data?alias=${encodeURIComponent(target.alias)}`);

    expect(res.body).to.include({ status: 200, deviceid: target.deviceid });
  });

  it('answers 404 ALIAS_NOT_FOUND for an alias no device has, and writes nothing', async () => {
    const [caller] = await aGroup(stack, 1);
    const client = asDevice(stack, caller);

    expectError(await client('GET', '/v2/device/shadow/data?alias=nobody'), 404, 'ALIAS_NOT_FOUND');
    expectError(await client('PUT', '/v2/device/shadow/data?alias=nobody', { body: { data: { a: 1 } } }), 404, 'ALIAS_NOT_FOUND');
    expectError(await client('POST', '/v2/device/shadow/data?alias=nobody', { body: { data: { a: 1 } } }), 404, 'ALIAS_NOT_FOUND');
    expect((await client('GET', '/v2/device/shadow/data')).body.rev).to.equal(0);
  });

  it('answers 403 OTHER_GROUP for an alias that exists only in another group of the project, and writes nothing', async () => {
    const [caller] = await aGroup(stack, 1);
    const elsewhere = await aDevice(stack, { projectid: caller.projectid });
    const client = asDevice(stack, caller);

    const read = await client('GET', `/v2/device/shadow/data?alias=${elsewhere.alias}`);
    const write = await client('PUT', `/v2/device/shadow/data?alias=${elsewhere.alias}`, { body: { data: { a: 1 } } });

    expectError(read, 403, 'OTHER_GROUP');
    expectError(write, 403, 'OTHER_GROUP');
    expect((await asDevice(stack, elsewhere)('GET', '/v2/device/shadow/data')).body.rev).to.equal(0);
  });

  it('answers 404 ALIAS_NOT_FOUND for an alias that exists only in another project', async () => {
    const [caller] = await aGroup(stack, 1);
    const stranger = await aDevice(stack, { groupid: caller.groupid });

    const res = await asDevice(stack, caller)('GET', `/v2/device/shadow/data?alias=${stranger.alias}`);

    expectError(res, 404, 'ALIAS_NOT_FOUND');
  });

  it('picks the device of the caller\'s group when two groups use the same alias', async () => {
    const [caller, target] = await aGroup(stack, 2);
    const twin = await aDevice(stack, { projectid: caller.projectid, alias: target.alias });

    const res = await asDevice(stack, caller)('PUT', `/v2/device/shadow/data?alias=${target.alias}`, { body: { data: { a: 1 } } });

    expect(res.body.deviceid).to.equal(target.deviceid);
    expect((await asDevice(stack, twin)('GET', '/v2/device/shadow/data')).body.rev).to.equal(0);
  });

  it('answers 400 INVALID_QUERY when alias is given twice', async () => {
    const [caller, target] = await aGroup(stack, 2);

    const res = await asDevice(stack, caller)('GET', `/v2/device/shadow/data?alias=${target.alias}&alias=${caller.alias}`);

    expectError(res, 400, 'INVALID_QUERY');
  });
});
