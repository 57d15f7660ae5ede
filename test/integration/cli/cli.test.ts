import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startStack, Stack } from '../../helpers/stack';

const run = promisify(execFile);
const CLI = join(__dirname, '../../../src/cli/main.ts');

describe('openpie CLI against a running service', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const cli = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, OPENPIE_URL: stack.baseUrl, ADMIN_TOKEN: stack.server.adminToken },
    });

  it('creates, shows, updates, rotates and deletes a device, printing JSON', async () => {
    const created = JSON.parse((await cli('devices', 'create', '--project', 'p1', '--group', 'g1', '--alias', 'lamp')).stdout);
    expect(created).to.include({ projectid: 'p1', groupid: 'g1', alias: 'lamp', enabled: true });

    expect(created.token).to.be.a('string');
    const shown = JSON.parse((await cli('devices', 'show', created.deviceid)).stdout);
    expect(shown).to.include({ deviceid: created.deviceid }).and.not.to.have.any.keys('token', 'secret');

    const updated = JSON.parse((await cli('devices', 'update', created.deviceid, '--banned', 'true')).stdout);
    expect(updated.banned).to.equal(true);

    const rotated = JSON.parse((await cli('devices', 'rotate-token', created.deviceid)).stdout);
    expect(rotated.token).to.be.a('string').and.not.equal(created.token);
    const newSecret = JSON.parse((await cli('devices', 'rotate-secret', created.deviceid)).stdout);
    expect(newSecret.secret).to.be.a('string').and.not.equal(created.secret);

    const migrations = JSON.parse((await cli('migrations', 'complete')).stdout);
    expect(migrations).to.include({ name: 'credential-digests', done: true, plaintextDevices: 0 });

    const listed = JSON.parse((await cli('devices', 'list', '--project', 'p1')).stdout);
    expect(listed.devices.map((d: { deviceid: string }) => d.deviceid)).to.deep.equal([created.deviceid]);

    await cli('devices', 'delete', created.deviceid);
    const gone = await cli('devices', 'show', created.deviceid).catch((err) => err);
    expect(gone.code).to.equal(1);
    expect(JSON.parse(gone.stderr)).to.include({ status: 404, code: 'DEVICE_NOT_FOUND' });
  });

  it('reads a shadow, finds it with a fleet query, and sets the device\'s desired state', async () => {
    const device = JSON.parse((await cli('devices', 'create', '--project', 'p-fleet', '--group', 'g1', '--alias', 'meter')).stdout);
    const written = await stack.http('PUT', '/v2/device/shadow/data', {
      headers: { authorization: `Device ${device.deviceid}:${device.token}` },
      body: { data: { battery: 12, fw: '2.0' } },
    });
    expect(written.status, written.text).to.equal(200);

    const shadow = JSON.parse((await cli('shadows', 'show', device.deviceid)).stdout);
    const found = JSON.parse((await cli('shadows', 'query', '--project', 'p-fleet', '--filter', '$.battery < 20', '--fields', 'battery')).stdout);
    const set = JSON.parse((await cli('desired', 'set', device.deviceid, '--json', '{"data":{"battery_saver":true}}')).stdout);
    const desired = JSON.parse((await cli('desired', 'show', device.deviceid)).stdout);

    expect(shadow).to.include({ deviceid: device.deviceid, rev: 1 });
    expect(shadow.data).to.deep.equal({ battery: 12, fw: '2.0' });
    expect(found.items.map((i: { deviceid: string; data: object }) => [i.deviceid, i.data])).to.deep.equal([[device.deviceid, { battery: 12 }]]);
    expect(set.status).to.equal(200);
    expect([desired.desired, desired.delta]).to.deep.equal([{ battery_saver: true }, { battery_saver: true }]);
  });

  it('issues a user token for a project, and revokes it by its jti', async () => {
    // Tokens are issued for projects that have a device.
    await cli('devices', 'create', '--project', 'p-tokens', '--group', 'g1', '--alias', 'meter');
    const { token, jti } = JSON.parse((await cli('tokens', 'issue', '--project', 'p-tokens', '--ttl', '60')).stdout);
    expect(token.split('.')).to.have.length(3);

    const revoked = JSON.parse((await cli('tokens', 'revoke', jti)).stdout);

    expect(revoked).to.deep.equal({ status: 204 });
    const refused = await stack.http('GET', '/v2/feed/api/v1/metricnames', { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).to.equal(401);
  });

  it('sets a schema from a file, sets and reads quota limits, and lists deliveries', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const device = JSON.parse((await cli('devices', 'create', '--project', 'p2', '--group', 'g1', '--alias', 'sensor')).stdout);
    const file = join(mkdtempSync(join(tmpdir(), 'openpie-cli-')), 'schema.json');
    writeFileSync(file, JSON.stringify({ properties: { temp: { type: 'number' } } }));

    const schema = JSON.parse((await cli('schema', 'set', device.deviceid, '--file', file)).stdout);
    const limits = JSON.parse((await cli('quotas', 'set', '--project', 'p2', '--shadow-ops', '100', '--messages', 'unlimited')).stdout);
    const report = JSON.parse((await cli('quotas', 'show', '--project', 'p2')).stdout);
    const log = JSON.parse((await cli('deliveries', 'list', '--project', 'p2')).stdout);
    const refused = await cli('hooks', 'set', 'h', '--project', 'p2', '--json', '{"type":"WEBHOOK","config":{"method":"GET","uri":"http://10.0.0.1/"}}').catch((e) => e);

    expect(schema).to.deep.equal({ properties: { temp: { type: 'number' } } });
    expect(limits.quotas.shadowOps).to.deep.equal({ used: 0, limit: 100 });
    expect(report.quotas.messages.limit).to.equal(null);
    expect(log).to.deep.equal({ deliveries: [] });
    expect(refused.code).to.equal(1);
    expect(JSON.parse(refused.stderr)).to.include({ status: 400, code: 'WEBHOOK_ADDRESS_REFUSED' });
  });

  it('creates a device with the credentials it brings, and imports a CSV file: a dry run first, then --apply', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { randomUUID } = await import('node:crypto');
    const key = () => randomUUID().replaceAll('-', '');
    const own = { deviceid: randomUUID(), token: key(), secret: key() };
    const created = JSON.parse((await cli('devices', 'create', '--project', 'p3', '--group', 'g1', '--alias', 'moved',
      '--deviceid', own.deviceid, '--token', own.token, '--secret', own.secret)).stdout);
    const dir = mkdtempSync(join(tmpdir(), 'openpie-cli-'));
    const file = join(dir, 'fleet.csv');
    const imported = { deviceid: randomUUID(), token: key(), secret: key() };
    writeFileSync(file, `clientid,token,secret,projectid,groupid,alias\n${imported.deviceid},${imported.token},${imported.secret},p3,g1,lamp\n`);
    const clashing = join(dir, 'clash.json');
    writeFileSync(clashing, JSON.stringify({ devices: [{ projectid: 'p3', groupid: 'g1', alias: 'moved' }] }));

    const dryRun = JSON.parse((await cli('devices', 'import', '--file', file)).stdout);
    const before = JSON.parse((await cli('devices', 'list', '--project', 'p3')).stdout);
    const applied = JSON.parse((await cli('devices', 'import', '--file', file, '--apply')).stdout);
    const refused = await cli('devices', 'import', '--file', clashing, '--apply').catch((e) => e);

    expect(created).to.include({ ...own, alias: 'moved' });
    expect(dryRun).to.deep.include({ dryRun: true, count: 1 });
    expect(before.total).to.equal(1);
    expect(applied.devices).to.deep.equal([{ row: 1, deviceid: imported.deviceid, projectid: 'p3', groupid: 'g1', alias: 'lamp',
      enabled: true, description: '', livenessttl: 0, generated: [] }]);
    expect(refused.code).to.equal(1);
    expect(JSON.parse(refused.stderr)).to.deep.include({ code: 'IMPORT_CONFLICT', rowErrors: [
      { row: 1, field: 'alias', code: 'ALIAS_TAKEN', message: 'alias "moved" is already used in group g1' },
    ] });
  });

  it('exits with 2 and the usage on a bad command', async () => {
    const err = await cli('devices', 'fly').catch((e) => e);
    expect(err.code).to.equal(2);
    expect(err.stderr).to.contain('usage: openpie');
  });
});
