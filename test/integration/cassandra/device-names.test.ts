import { expect } from 'chai';
import { types } from 'cassandra-driver';
import { randomUUID } from 'node:crypto';
import { CassandraConnection } from '../../../src/adapters/cassandra/cassandra-client';
import { createCassandraDeviceStore } from '../../../src/adapters/cassandra/cassandra-device-store';
import { DeviceStore } from '../../../src/devices/port';
import { CassandraTestSettings, cassandraOrSkip, connectTestKeyspace, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { aDeviceRecord, codeOf, rejectionOf, testCredentialKey } from '../contracts/store-under-test';

// A registration or rename interrupted between its statements (a crash, Cassandra gone) leaves a claim on a name
// without a device holding it (src/adapters/cassandra/cassandra-device-names.ts). These tests write such claims directly.
describe('Cassandra device names: claims left behind', function () {
  this.timeout(60_000);
  const STALE_MS = 500;
  let settings: CassandraTestSettings;
  let keyspace: string;
  let conn: CassandraConnection;
  let devices: DeviceStore;

  before(async function () {
    settings = cassandraOrSkip(this);
    keyspace = randomKeyspace();
    conn = await connectTestKeyspace(settings, keyspace);
    devices = createCassandraDeviceStore(conn, testCredentialKey, { staleClaimAfterMs: STALE_MS });
  });
  after(async () => {
    await conn?.close();
    if (keyspace) await dropKeyspace(settings, keyspace);
  });

  /** A claim as an interrupted operation leaves it, `ageMs` old. */
  async function leaveClaim(name: { projectid: string; groupid: string; alias: string }, deviceid: string, ageMs: number) {
    await conn.client.execute(
      `INSERT INTO ${conn.tables.names} (projectid, alias, groupid, deviceid, owner, claimed) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
      [name.projectid, name.alias, name.groupid, deviceid, types.Uuid.random(), types.Long.fromNumber(Date.now() - ageMs)],
    );
  }

  it('takes over a stale claim whose device was never written', async () => {
    const device = aDeviceRecord();
    await leaveClaim(device, randomUUID(), STALE_MS * 2);

    await devices.insertDevice(device);

    expect(await devices.findDevicesByAlias(device.projectid, device.alias)).to.deep.equal([device]);
  });

  it('keeps a young claim: its registration may still be under way', async () => {
    const device = aDeviceRecord();
    await leaveClaim(device, randomUUID(), 0);

    expect(codeOf(await rejectionOf(devices.insertDevice(device)))).to.equal('ALIAS_TAKEN');
    expect(await devices.getDevice(device.deviceid)).to.equal(undefined);
  });

  it('takes over a stale claim of a device that was renamed away, and leaves that device its new name', async () => {
    const renamed = aDeviceRecord({ alias: 'now' });
    await devices.insertDevice(renamed);
    const name = { projectid: renamed.projectid, groupid: renamed.groupid, alias: 'before' };
    await leaveClaim(name, renamed.deviceid, STALE_MS * 2);
    const successor = aDeviceRecord({ ...name });

    await devices.insertDevice(successor);

    expect(await devices.listDevices({ projectid: renamed.projectid })).to.deep.equal([successor, renamed]);
  });

  it('never takes a name from the device that holds it, however old the claim', async () => {
    const holder = aDeviceRecord();
    await devices.insertDevice(holder);
    await new Promise((resolve) => setTimeout(resolve, STALE_MS * 2));

    const err = await rejectionOf(devices.insertDevice(aDeviceRecord({ projectid: holder.projectid, groupid: holder.groupid, alias: holder.alias })));

    expect(codeOf(err)).to.equal('ALIAS_TAKEN');
    expect(await devices.findDevicesByAlias(holder.projectid, holder.alias)).to.deep.equal([holder]);
  });

  it('lists and finds only devices that hold their claims', async () => {
    const device = aDeviceRecord({ alias: 'real' });
    await devices.insertDevice(device);
    await leaveClaim({ ...device, alias: 'ghost' }, randomUUID(), 0);
    await leaveClaim({ ...device, alias: 'stale' }, device.deviceid, 0);

    expect(await devices.listDevices({ projectid: device.projectid })).to.deep.equal([device]);
    expect(await devices.findDevicesByAlias(device.projectid, 'ghost')).to.deep.equal([]);
    expect(await devices.findDevicesByAlias(device.projectid, 'stale')).to.deep.equal([]);
  });
});
