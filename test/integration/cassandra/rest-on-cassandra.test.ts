import { expect } from 'chai';
import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { aDevice, aGroup } from '../../helpers/devices';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

// A few REST stories end to end with STORE=cassandra (the whole REST suite runs so with TEST_STORE=cassandra, see
// test/helpers/cassandra.ts).
describe('REST API with STORE=cassandra', function () {
  this.timeout(60_000);
  let settings: CassandraTestSettings;
  let keyspace: string;
  let stack: Stack | undefined;
  let restarted: Stack | undefined;

  before(async function () {
    settings = cassandraOrSkip(this);
    keyspace = randomKeyspace();
    stack = await startStack({ env: cassandraStoreEnv(settings, keyspace) });
  });
  after(async () => {
    await (restarted ?? stack)?.stop();
    if (keyspace) await dropKeyspace(settings, keyspace);
  });

  it('is ready, with Cassandra among its checks', async () => {
    const res = await stack!.http('GET', '/readyz');

    expect(res.status, res.text).to.equal(200);
    expect(res.body.checks.cassandra.status).to.equal('ok');
  });

  it('registers devices, refuses a second device with the same alias in the group with 409, and lists them', async () => {
    const device = await aDevice(stack!, { alias: 'door' });

    const clash = await stack!.admin('POST', '/v2/admin/devices', { body: { projectid: device.projectid, groupid: device.groupid, alias: 'door' } });
    const list = await stack!.admin('GET', `/v2/admin/devices?projectid=${device.projectid}`);

    expectError(clash, 409, 'ALIAS_TAKEN');
    expect(list.status).to.equal(200);
    expect(JSON.stringify(list.body)).to.include(device.deviceid);
  });

  it('writes, merges and batches a shadow, counting rev, and addresses a group mate by alias', async () => {
    const [device, mate] = await aGroup(stack!, 2);
    const client = asDevice(stack!, device);

    await client('PUT', '/v2/device/shadow/data', { body: { data: { a: 1, o: { x: 1 } } } });
    await client('PUT', '/v2/device/shadow/batch', { body: { batch: [{ data: { b: 2 }, ts: Date.now() }, { data: { o: { y: 2 } }, ts: Date.now() + 1 }] } });
    await asDevice(stack!, mate)('PUT', `/v2/device/shadow/data?alias=${device.alias}`, { body: { data: { c: 3 } } });
    const read = await client('GET', '/v2/device/shadow/data');

    expect(read.status).to.equal(200);
    expect(read.body).to.include({ deviceid: device.deviceid, rev: 3 });
    expect(read.body.data).to.deep.equal({ a: 1, o: { x: 1, y: 2 }, b: 2, c: 3 });
  });

  it('delivers the points of shadow writes to the time-series store through the Cassandra outbox', async () => {
    const device = await aDevice(stack!);
    const base = Date.now() - 60_000;
    const batch = [0, 1, 2].map((i) => ({ ts: base + i, data: { temp: 20 + i } }));
    await asDevice(stack!, device)('PUT', '/v2/device/shadow/batch', { body: { batch } });

    const res = await stack!.http('POST', '/v2/feed/api/v1/datapoints/query', {
      headers: { authorization: device.auth },
      body: { start_absolute: base, metrics: [{ name: device.deviceid }] },
    });

    expect(res.status, res.text).to.equal(200);
    expect(res.body.queries[0].results[0].values).to.deep.equal([[base, 20], [base + 1, 21], [base + 2, 22]]);
  });

  it('deletes a device with its shadow: its token stops working and its alias is free again', async () => {
    const device = await aDevice(stack!);
    await asDevice(stack!, device)('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });

    expect((await stack!.admin('DELETE', `/v2/admin/devices/${device.deviceid}`)).status).to.be.oneOf([200, 204]);

    expectError(await asDevice(stack!, device)('GET', '/v2/device/shadow/data'), 401, 'INVALID_CREDENTIALS');
    const again = await aDevice(stack!, { projectid: device.projectid, groupid: device.groupid, alias: device.alias });
    const fresh = await asDevice(stack!, again)('GET', '/v2/device/shadow/data');
    expect(fresh.body).to.include({ rev: 0 });
    expect(fresh.body.data).to.deep.equal({});
  });

  it('keeps devices and shadows across a restart on the same keyspace', async () => {
    const device = await aDevice(stack!);
    await asDevice(stack!, device)('PUT', '/v2/device/shadow/data', { body: { data: { kept: true } } });

    await stack!.stop({ keepData: true });
    restarted = await startStack({ dataDir: stack!.dataDir, env: cassandraStoreEnv(settings, keyspace) });

    const read = await asDevice(restarted, device)('GET', '/v2/device/shadow/data');
    expect(read.status).to.equal(200);
    expect(read.body).to.include({ rev: 1 });
    expect(read.body.data).to.deep.equal({ kept: true });
  });
});
