import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { TestDevice } from '../../helpers/devices';
import { HttpResponse } from '../../helpers/http';
import { connectDevice, endAll } from '../../helpers/mqtt';
import { asDevice, expectError } from '../../helpers/rest-device';
import { Stack } from '../../helpers/stack';

/** A NETPIE-looking key: 32 letters and digits, random (a fixed one would clash between runs on one store). */
const aKey = () => randomUUID().replaceAll('-', '').slice(0, 16) + randomUUID().replaceAll('-', '').toUpperCase().slice(0, 16);
const aProject = () => `p-${randomUUID().slice(0, 8)}`;

/** What a NETPIE device has burnt in: its ClientID, token and secret. */
const netpieCredentials = () => ({ deviceid: randomUUID(), token: aKey(), secret: aKey() });

const asTestDevice = (d: { deviceid: string; token: string; secret: string; alias: string; groupid: string; projectid: string }): TestDevice => ({
  ...d, auth: `Device ${d.deviceid}:${d.token}`,
});

/**
 * Bringing a NETPIE fleet's credentials (issue 18 §3): one device with given credentials, and imports from JSON and
 * CSV, all or none. Run on SQLite (own-credentials.test.ts) and on Cassandra (test/integration/cassandra).
 */
export function ownCredentialsScenarios(stackOf: () => Stack): void {
  const admin = (method: string, path: string, opts?: Parameters<Stack['admin']>[2]) => stackOf().admin(method, path, opts);
  const devicesOf = async (projectid: string) => (await admin('GET', `/v2/admin/devices?projectid=${projectid}`)).body.devices as TestDevice[];
  const rowErrors = (res: HttpResponse) => (res.body.rowErrors as { row: number; field: string; code: string }[]).map((e) => [e.row, e.field, e.code]);

  describe('POST /v2/admin/devices with given credentials', () => {
    it('registers the ClientID, token and secret given, and the device connects with them over MQTT and REST', async () => {
      const given = netpieCredentials();
      const body = { ...given, projectid: aProject(), groupid: 'g', alias: 'moved-lamp' };

      const res = await admin('POST', '/v2/admin/devices', { body });

      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include(body);
      const device = asTestDevice(res.body);
      await endAll(await connectDevice(stackOf().mqttUrl, device, { password: given.secret }));
      await endAll(await connectDevice(stackOf().mqttUrl, device, { password: given.secret, protocolVersion: 5 }));
      const status = await asDevice(stackOf(), device)('GET', '/v2/device/status');
      expect(status.status, status.text).to.equal(200);
      expect(status.body).to.include({ deviceid: given.deviceid });
    });

    it('makes what is not given: a token alone keeps a new UUID and a new secret', async () => {
      const token = aKey();

      const res = await admin('POST', '/v2/admin/devices', { body: { token, projectid: aProject(), groupid: 'g', alias: 'a' } });

      expect(res.status, res.text).to.equal(201);
      expect(res.body.token).to.equal(token);
      expect(res.body.deviceid).to.match(/^[0-9a-f-]{36}$/);
      expect(res.body.secret).to.match(/^[A-Za-z0-9]{32}$/);
    });

    for (const [what, member, value] of [
      ['a device id that is not a UUID', 'deviceid', 'my-lamp'],
      ['a device id in capitals', 'deviceid', randomUUID().toUpperCase()],
      ['a token of 15 characters', 'token', 'Ab3dE6gH9jK2mN5'],
      ['a token with a colon (it would break `Device <id>:<token>`)', 'token', `${aKey()}:x`],
      ['a token of one repeated pattern', 'token', 'abababababababababababababababab'],
      ['a secret with a space', 'secret', `${aKey()} x`],
    ] as const) {
      it(`answers 400 INVALID_BODY naming ${member} for ${what}, without showing the value`, async () => {
        const projectid = aProject();

        const res = await admin('POST', '/v2/admin/devices', { body: { [member]: value, projectid, groupid: 'g', alias: 'a' } });

        expectError(res, 400, 'INVALID_BODY');
        expect(res.body.message).to.match(new RegExp(`^${member}: `));
        if (member !== 'deviceid') expect(res.text).to.not.include(value);
        expect(await devicesOf(projectid)).to.deep.equal([]);
      });
    }

    it('answers 409 DEVICE_ID_TAKEN for a device id in use, and 409 TOKEN_TAKEN for a token another device holds', async () => {
      const first = netpieCredentials();
      const projectid = aProject();
      expect((await admin('POST', '/v2/admin/devices', { body: { ...first, projectid, groupid: 'g', alias: 'first' } })).status).to.equal(201);

      const sameId = await admin('POST', '/v2/admin/devices', { body: { deviceid: first.deviceid, projectid, groupid: 'g', alias: 'second' } });
      const sameToken = await admin('POST', '/v2/admin/devices', { body: { token: first.token, projectid, groupid: 'g', alias: 'third' } });

      expectError(sameId, 409, 'DEVICE_ID_TAKEN');
      expectError(sameToken, 409, 'TOKEN_TAKEN');
      expect((await devicesOf(projectid)).map((d) => d.alias)).to.deep.equal(['first']);
    });

    it('lets at most one of several concurrent registrations of one token keep it', async () => {
      const token = aKey();
      const projectid = aProject();

      const answers = await Promise.all(Array.from({ length: 5 }, (_, i) =>
        admin('POST', '/v2/admin/devices', { body: { token, projectid, groupid: 'g', alias: `d${i}` } })));

      expect(answers.filter((r) => r.status === 201).length).to.be.at.most(1);
      for (const r of answers.filter((a) => a.status !== 201)) expectError(r, 409, 'TOKEN_TAKEN');
      expect((await devicesOf(projectid)).filter((d) => d.token === token).length).to.be.at.most(1);
    });

    it('takes the id of a deleted device again (imported, deleted, imported once more)', async () => {
      const given = netpieCredentials();
      const body = { ...given, projectid: aProject(), groupid: 'g', alias: 'again' };
      expect((await admin('POST', '/v2/admin/devices', { body })).status).to.equal(201);
      expect((await admin('DELETE', `/v2/admin/devices/${given.deviceid}`)).status).to.equal(204);

      const again = await admin('POST', '/v2/admin/devices', { body });

      expect(again.status, again.text).to.equal(201);
      const shadow = await asDevice(stackOf(), asTestDevice(again.body))('PUT', '/v2/device/shadow/data', { body: { data: { on: true } } });
      expect(shadow.status, shadow.text).to.equal(200);
    });
  });

  describe('POST /v2/admin/devices/import', () => {
    it('imports JSON devices, answering each without the credentials given and with those made, once', async () => {
      const projectid = aProject();
      const given = netpieCredentials();
      const devices = [
        { ...given, projectid, groupid: 'g', alias: 'lamp', description: 'from NETPIE' },
        { projectid, groupid: 'g', alias: 'fresh', enabled: false, livenessttl: 60 },
      ];

      const res = await admin('POST', '/v2/admin/devices/import', { body: { devices } });

      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include({ dryRun: false, count: 2 });
      const [lamp, fresh] = res.body.devices;
      expect(lamp).to.deep.equal({ row: 1, deviceid: given.deviceid, projectid, groupid: 'g', alias: 'lamp', enabled: true,
        description: 'from NETPIE', livenessttl: 0, generated: [] });
      expect(fresh).to.include({ row: 2, alias: 'fresh', enabled: false, livenessttl: 60 });
      expect(fresh.generated).to.deep.equal(['deviceid', 'token', 'secret']);
      expect(fresh.token).to.match(/^[A-Za-z0-9]{32}$/);
      expect(res.text).to.not.include(given.token);
      expect(res.text).to.not.include(given.secret);
      const stored = await devicesOf(projectid);
      expect(stored.map((d) => d.alias)).to.deep.equal(['fresh', 'lamp']);
      const client = await connectDevice(stackOf().mqttUrl, asTestDevice({ ...given, alias: 'lamp', projectid, groupid: 'g' }), { password: given.secret });
      await endAll(client);
    });

    it('imports CSV: columns in any order, NETPIE\'s clientid, quoted cells, empty cells left to the service', async () => {
      const projectid = aProject();
      const a = netpieCredentials();
      const csv = [
        'alias,ClientID,token,secret,projectid,groupid,description,enabled,livenessttl',
        `kitchen,${a.deviceid},${a.token},${a.secret},${projectid},home,"lamp, ""big"" one",true,30`,
        `porch,,,,${projectid},home,,false,`,
        '',
      ].join('\r\n');

      const res = await admin('POST', '/v2/admin/devices/import', { body: csv, contentType: 'text/csv' });

      expect(res.status, res.text).to.equal(201);
      const stored = await admin('GET', `/v2/admin/devices/${a.deviceid}`);
      const { token, secret, ...withoutCredentials } = a;
      expect(stored.body).to.include({ ...withoutCredentials, alias: 'kitchen', groupid: 'home', description: 'lamp, "big" one', livenessttl: 30 });
      expect(stored.text).not.to.include(token).and.not.to.include(secret);
      expect(res.body.devices[1]).to.include({ alias: 'porch', enabled: false });
      expect(res.body.devices[1].generated).to.deep.equal(['deviceid', 'token', 'secret']);
    });

    it('with ?dryRun=true checks every row and says what it would create, writing nothing', async () => {
      const projectid = aProject();
      const given = netpieCredentials();
      const devices = [{ ...given, projectid, groupid: 'g', alias: 'one' }, { projectid, groupid: 'g', alias: 'two' }];

      const res = await admin('POST', '/v2/admin/devices/import?dryRun=true', { body: { devices } });

      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ dryRun: true, count: 2 });
      expect(res.body.devices[0]).to.include({ row: 1, deviceid: given.deviceid, alias: 'one' });
      expect(res.body.devices[1]).to.not.have.any.keys('deviceid', 'token', 'secret');
      expect(await devicesOf(projectid)).to.deep.equal([]);
      expect((await admin('GET', `/v2/admin/devices/${given.deviceid}`)).status).to.equal(404);
    });

    it('writes nothing when one row is malformed, and reports every problem by row, line and field', async () => {
      const projectid = aProject();
      const csv = [
        'deviceid,token,projectid,groupid,alias,enabled',
        `${randomUUID()},${aKey()},${projectid},g,good,true`,
        `not-a-uuid,short,${projectid},g,bad,maybe`,
        `${randomUUID()},,${projectid},g,,true`,
        `${randomUUID()},,${projectid},g,x,true,extra`,
      ].join('\n');

      const res = await admin('POST', '/v2/admin/devices/import', { body: csv, contentType: 'text/csv' });

      expectError(res, 400, 'IMPORT_INVALID');
      expect(rowErrors(res)).to.deep.equal([
        [2, 'deviceid', 'INVALID_BODY'], [2, 'token', 'INVALID_BODY'], [2, 'enabled', 'INVALID_BODY'],
        [3, 'alias', 'INVALID_BODY'],
        [4, null, 'INVALID_BODY'],
      ]);
      expect(res.body.rowErrors[0].line).to.equal(3);
      expect(await devicesOf(projectid)).to.deep.equal([]);
    });

    it('answers 409 IMPORT_CONFLICT for rows that repeat an id, a token or an alias of the file or of stored devices', async () => {
      const projectid = aProject();
      const stored = (await admin('POST', '/v2/admin/devices', { body: { ...netpieCredentials(), projectid, groupid: 'g', alias: 'stored' } })).body;
      const a = netpieCredentials();
      const devices = [
        { ...a, projectid, groupid: 'g', alias: 'a' },
        { deviceid: a.deviceid, projectid, groupid: 'g', alias: 'b' },
        { token: a.token, projectid, groupid: 'g', alias: 'c' },
        { projectid, groupid: 'g', alias: 'a' },
        { projectid, groupid: 'other', alias: 'a' },
        { deviceid: stored.deviceid, token: stored.token, projectid, groupid: 'g', alias: 'stored' },
      ];

      const res = await admin('POST', '/v2/admin/devices/import', { body: { devices } });

      expectError(res, 409, 'IMPORT_CONFLICT');
      expect(rowErrors(res)).to.deep.equal([
        [2, 'deviceid', 'DEVICE_ID_TAKEN'],
        [3, 'token', 'TOKEN_TAKEN'],
        [4, 'alias', 'ALIAS_TAKEN'],
        [6, 'deviceid', 'DEVICE_ID_TAKEN'], [6, 'token', 'TOKEN_TAKEN'], [6, 'alias', 'ALIAS_TAKEN'],
      ]);
      expect((await devicesOf(projectid)).map((d) => d.alias)).to.deep.equal(['stored']);
    });

    it('leaves all or nothing of each of two imports of the same devices run at once', async function () {
      this.timeout(60_000);
      const projectid = aProject();
      const devices = Array.from({ length: 40 }, (_, i) => ({ ...netpieCredentials(), projectid, groupid: 'g', alias: `d${i}` }));

      const answers = await Promise.all([1, 2].map(() => admin('POST', '/v2/admin/devices/import', { body: { devices } })));

      for (const r of answers) expect([201, 409], r.text).to.include(r.status);
      const won = answers.filter((r) => r.status === 201).length;
      expect(won).to.be.at.most(1);
      expect((await devicesOf(projectid)).length).to.equal(won === 1 ? devices.length : 0);
    });

    it('refuses an empty import, an unknown CSV column, more than 10,000 rows and an unknown content type', async () => {
      const projectid = aProject();
      const many = Array.from({ length: 10_001 }, (_, i) => ({ projectid, groupid: 'g', alias: `d${i}` }));

      expectError(await admin('POST', '/v2/admin/devices/import', { body: { devices: [] } }), 400, 'INVALID_BODY');
      expectError(await admin('POST', '/v2/admin/devices/import', { body: 'projectid,groupid,alias,colour\n', contentType: 'text/csv' }), 400, 'INVALID_BODY');
      expectError(await admin('POST', '/v2/admin/devices/import', { body: { devices: many } }), 413, 'PAYLOAD_TOO_LARGE');
      expectError(await admin('POST', '/v2/admin/devices/import', { body: '<devices/>', contentType: 'application/xml' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(await devicesOf(projectid)).to.deep.equal([]);
    });
  });
}
