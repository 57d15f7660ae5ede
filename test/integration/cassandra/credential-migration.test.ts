import { Client, types } from 'cassandra-driver';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey } from '../../../src/devices/credentials';
import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { connectDevice } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

/**
 * A rolling upgrade on Cassandra (docs/production.md "Rolling upgrades"): rows an older node writes keep their
 * plaintext credentials, which nodes of this release accept and leave as they are until an operator completes the
 * migration once every node is new; then no plaintext is left and the old credentials still work.
 */
describe('the credential migration with STORE=cassandra (a mixed old/new cluster)', function () {
  this.timeout(60_000);
  let settings: CassandraTestSettings;
  let keyspace: string;
  let stack: Stack | undefined;
  let cql: Client;
  const keyDir = mkdtempSync(join(tmpdir(), 'openpie-cred-key-'));

  before(async function () {
    settings = cassandraOrSkip(this);
    keyspace = randomKeyspace();
    stack = await startStack({ env: cassandraStoreEnv(settings, keyspace), credentialKeyFile: join(keyDir, 'credential-key') });
    cql = new Client({ contactPoints: settings.contactPoints, localDataCenter: settings.localDataCenter });
  });
  after(async () => {
    await stack?.stop();
    await cql?.shutdown();
    if (keyspace) await dropKeyspace(settings, keyspace);
    rmSync(keyDir, { recursive: true, force: true });
  });

  /** What a node of the previous release writes for a new device: the row with its token and secret as they are. */
  async function registerOnOldNode(): Promise<{ deviceid: string; token: string; secret: string; alias: string; groupid: string; projectid: string }> {
    const d = { deviceid: randomUUID(), token: generateKey(), secret: generateKey(), alias: `old-${randomUUID().slice(0, 8)}`, groupid: 'g', projectid: `p-${randomUUID().slice(0, 8)}` };
    await cql.execute(`INSERT INTO ${keyspace}.devices (deviceid, "token", secret, alias, groupid, projectid, enabled, banned, description, livenessttl, created)
      VALUES (?, ?, ?, ?, ?, ?, true, false, '', 0, ?)`, [d.deviceid, d.token, d.secret, d.alias, d.groupid, d.projectid, types.Long.fromNumber(Date.now())], { prepare: true });
    await cql.execute(`INSERT INTO ${keyspace}.shadows (deviceid, rev, tail) VALUES (?, 0, minTimeuuid(0))`, [d.deviceid], { prepare: true });
    return d;
  }
  const storedRow = async (deviceid: string) =>
    (await cql.execute(`SELECT "token", secret FROM ${keyspace}.devices WHERE deviceid = ?`, [deviceid], { prepare: true })).first();
  const statusAs = (deviceid: string, token: string) =>
    stack!.http('GET', '/v2/device/status', { headers: { authorization: `Device ${deviceid}:${token}` } });

  it('accepts a row an older node wrote, over REST and MQTT (by ClientID and by token alone), and leaves it readable to old nodes', async () => {
    const old = await registerOnOldNode();

    expect((await statusAs(old.deviceid, old.token)).status).to.equal(200);
    (await connectDevice(stack!.mqttUrl, { ...old, auth: '' }, { password: old.secret })).end(true);
    (await connectDevice(stack!.mqttUrl, { ...old, auth: '' }, { clientId: '' })).end(true);
    // A change through a new node keeps the credentials in the form the row had: an old node still accepts them.
    await stack!.admin('PATCH', `/v2/admin/devices/${old.deviceid}`, { body: { description: 'changed on a new node' } });
    expect((await storedRow(old.deviceid))?.get('token')).to.equal(old.token);
    const status = await stack!.admin('GET', '/v2/admin/migrations');
    expect(status.body.migrations[0]).to.include({ name: 'credential-digests', done: false }).and.have.property('plaintextDevices').at.least(1);
  });

  it('completes once every node is new: no plaintext is left, and the old credentials still work', async () => {
    const old = await registerOnOldNode();

    const res = await stack!.admin('POST', '/v2/admin/migrations/credential-digests');

    expect(res.status).to.equal(200);
    expect(res.body).to.include({ name: 'credential-digests', done: true, plaintextDevices: 0 });
    expect(res.body.rewritten).to.be.at.least(1);
    const row = await storedRow(old.deviceid);
    expect(row?.get('token')).to.match(/^hmac-sha256:/);
    expect(row?.get('secret')).to.match(/^hmac-sha256:/);
    expect((await statusAs(old.deviceid, old.token)).status).to.equal(200);
    (await connectDevice(stack!.mqttUrl, { ...old, auth: '' }, { password: old.secret })).end(true);
    expect((await stack!.admin('POST', '/v2/admin/migrations/credential-digests')).body.rewritten, 'idempotent').to.equal(0);
  });
});
