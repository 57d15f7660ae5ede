import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice } from '../../helpers/devices';
import { httpClient, HttpClient } from '../../helpers/http';
import { expectError } from '../../helpers/rest-device';
import { Stack } from '../../helpers/stack';

const aName = (role: string) => `${role}-${randomUUID().slice(0, 8)}`;
const aProject = () => `p-${randomUUID().slice(0, 8)}`;

/**
 * Operator accounts with roles and projects, and the audit log (issue 20 §5), through the real admin API. Run on
 * SQLite (operators.test.ts) and on Cassandra (test/integration/cassandra/operators-on-cassandra.test.ts).
 */
export function operatorScenarios(stackOf: () => Stack): void {
  const admin: HttpClient = (method, path, opts) => stackOf().admin(method, path, opts);
  const as = (key: string) => httpClient(stackOf().baseUrl, { authorization: `Bearer ${key}` });
  async function anOperator(role: 'viewer' | 'operator' | 'admin', projects?: string[]) {
    const res = await admin('POST', '/v2/admin/operators', { body: { name: aName(role), role, ...(projects ? { projects } : {}) } });
    expect(res.status, res.text).to.equal(201);
    return { name: res.body.name as string, key: res.body.key as string, call: as(res.body.key) };
  }

  describe('POST /v2/admin/operators', () => {
    it('shows the key once, with Cache-Control: no-store, and never on a read', async () => {
      const res = await admin('POST', '/v2/admin/operators', { body: { name: aName('viewer'), role: 'viewer', projects: ['home'] } });
      const read = await admin('GET', `/v2/admin/operators/${res.body.name}`);
      const list = await admin('GET', '/v2/admin/operators');

      expect(res.status).to.equal(201);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.body.key).to.match(new RegExp(`^opk\\.${res.body.name}\\.[A-Za-z0-9]{43}$`));
      expect(read.body).to.deep.equal({ name: res.body.name, role: 'viewer', projects: ['home'], created: res.body.created });
      expect(list.text).to.not.include(res.body.key);
      expect(list.text).to.not.include('hmac-sha256');
    });

    it('refuses a name taken (409 OPERATOR_TAKEN) and an admin limited to some projects (400)', async () => {
      const { name } = await anOperator('viewer');

      expectError(await admin('POST', '/v2/admin/operators', { body: { name, role: 'operator' } }), 409, 'OPERATOR_TAKEN');
      expectError(await admin('POST', '/v2/admin/operators', { body: { name: aName('a'), role: 'admin', projects: ['x'] } }), 400, 'INVALID_BODY');
    });
  });

  describe('roles', () => {
    it('a viewer reads the devices of its projects and changes nothing (403 ROLE_FORBIDDEN)', async () => {
      const device = await aDevice(stackOf());
      const viewer = await anOperator('viewer', [device.projectid]);

      const read = await viewer.call('GET', `/v2/admin/devices/${device.deviceid}`);
      const patch = await viewer.call('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { description: 'x' } });
      const create = await viewer.call('POST', '/v2/admin/devices', { body: { projectid: device.projectid, groupid: 'g', alias: 'a' } });
      const hook = await viewer.call('PUT', `/v2/admin/projects/${device.projectid}/quotas`, { body: {} });

      expect(read.status).to.equal(200);
      expect(read.body.deviceid).to.equal(device.deviceid);
      expectError(patch, 403, 'ROLE_FORBIDDEN');
      expectError(create, 403, 'ROLE_FORBIDDEN');
      expectError(hook, 403, 'ROLE_FORBIDDEN');
    });

    it('an operator changes devices, triggers and quotas of its projects only (403 PROJECT_FORBIDDEN elsewhere)', async () => {
      const mine = await aDevice(stackOf());
      const theirs = await aDevice(stackOf());
      const operator = await anOperator('operator', [mine.projectid]);

      const created = await operator.call('POST', '/v2/admin/devices', { body: { projectid: mine.projectid, groupid: 'g', alias: 'new' } });
      const patched = await operator.call('PATCH', `/v2/admin/devices/${mine.deviceid}`, { body: { description: 'mine' } });
      const triggers = await operator.call('PUT', `/v2/admin/devices/${mine.deviceid}/triggers`, { body: { enabled: true, trigger: [] } });
      const quota = await operator.call('PUT', `/v2/admin/projects/${mine.projectid}/quotas`, { body: { messages: 1000 } });

      expect(created.status, created.text).to.equal(201);
      expect(patched.status, patched.text).to.equal(200);
      expect(triggers.status, triggers.text).to.equal(200);
      expect(quota.status, quota.text).to.equal(200);
      expectError(await operator.call('GET', `/v2/admin/devices/${theirs.deviceid}`), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator.call('DELETE', `/v2/admin/devices/${theirs.deviceid}`), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator.call('POST', `/v2/admin/devices/${theirs.deviceid}/token`), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator.call('PUT', `/v2/admin/devices/${theirs.deviceid}/shadow`, { body: { data: { a: 1 } } }), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator.call('GET', `/v2/admin/projects/${theirs.projectid}/hooks`), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator.call('POST', '/v2/admin/devices', { body: { projectid: theirs.projectid, groupid: 'g', alias: 'x' } }), 403, 'PROJECT_FORBIDDEN');
    });

    it('lists, without a project, only the devices and projects of the caller\'s projects', async () => {
      const mine = await aDevice(stackOf());
      const theirs = await aDevice(stackOf());
      const viewer = await anOperator('viewer', [mine.projectid]);

      const devices = await viewer.call('GET', '/v2/admin/devices');
      const projects = await viewer.call('GET', '/v2/admin/projects');

      expect(devices.body.devices.map((d: { deviceid: string }) => d.deviceid)).to.deep.equal([mine.deviceid]);
      expect(devices.body.total).to.equal(1);
      expect(projects.text).to.include(mine.projectid).and.not.include(theirs.projectid);
      expectError(await viewer.call('GET', `/v2/admin/devices?projectid=${theirs.projectid}`), 403, 'PROJECT_FORBIDDEN');
    });

    it('user tokens: read-only for a project of the caller; write scope and key rotation are an admin\'s', async () => {
      const device = await aDevice(stackOf());
      const operator = await anOperator('operator', [device.projectid]);

      const read = await operator.call('POST', '/v2/admin/tokens', { body: { projectid: device.projectid } });

      expect(read.status, read.text).to.equal(201);
      expectError(await operator.call('POST', '/v2/admin/tokens', { body: { projectid: device.projectid, scope: 'write' } }), 403, 'ROLE_FORBIDDEN');
      expect((await operator.call('POST', '/v2/admin/tokens', { body: { projectid: device.projectid, grants: ['fleet'] } })).body.grants).to.deep.equal(['read', 'fleet']);
      expectError(await operator.call('POST', '/v2/admin/tokens', { body: { projectid: device.projectid, grants: ['fleet', 'desired'] } }), 403, 'ROLE_FORBIDDEN');
      expectError(await operator.call('POST', '/v2/admin/tokens', { body: { projectid: aProject() } }), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator.call('POST', '/v2/admin/tokens/key'), 403, 'ROLE_FORBIDDEN');
    });

    it('only an admin manages operators; an admin operator does so like the bootstrap token', async () => {
      const operator = await anOperator('operator');
      const boss = await anOperator('admin');

      expectError(await operator.call('GET', '/v2/admin/operators'), 403, 'ROLE_FORBIDDEN');
      expectError(await operator.call('POST', '/v2/admin/operators', { body: { name: aName('x'), role: 'admin' } }), 403, 'ROLE_FORBIDDEN');
      const made = await boss.call('POST', '/v2/admin/operators', { body: { name: aName('made'), role: 'viewer' } });
      expect(made.status, made.text).to.equal(201);
      expect((await boss.call('DELETE', `/v2/admin/operators/${made.body.name}`)).status).to.equal(204);
      expect((await as(made.body.key)('GET', '/v2/admin/service')).status).to.equal(401);
    });

    it('GET /v2/admin/me says who calls', async () => {
      const viewer = await anOperator('viewer', ['home']);

      expect((await viewer.call('GET', '/v2/admin/me')).body).to.deep.equal({ name: viewer.name, role: 'viewer', projects: ['home'] });
      expect((await admin('GET', '/v2/admin/me')).body).to.deep.equal({ name: 'bootstrap', role: 'admin', projects: '*' });
    });
  });

  describe('POST /v2/admin/operators/{name}/key', () => {
    it('replaces the key: the old one is refused at once, the new one works', async () => {
      const viewer = await anOperator('viewer');

      const rotated = await admin('POST', `/v2/admin/operators/${viewer.name}/key`);

      expect(rotated.status).to.equal(200);
      expect(rotated.headers.get('cache-control')).to.equal('no-store');
      expectError(await viewer.call('GET', '/v2/admin/service'), 401, 'INVALID_CREDENTIALS');
      expect((await as(rotated.body.key)('GET', '/v2/admin/service')).status).to.equal(200);
    });
  });

  describe('GET /v2/admin/audit', () => {
    it('records every change with who, when, what and from where, never a secret, and refused ones too', async () => {
      const started = Date.now();
      const operator = await anOperator('operator');
      const created = await operator.call('POST', '/v2/admin/devices', { body: { projectid: aProject(), groupid: 'g', alias: 'a' } });
      const rotated = await operator.call('POST', `/v2/admin/devices/${created.body.deviceid}/token`);
      await operator.call('DELETE', `/v2/admin/operators/${operator.name}`);

      const res = await admin('GET', `/v2/admin/audit?actor=${operator.name}&since=${started}`);

      expect(res.status).to.equal(200);
      const entries = res.body.entries as { actor: string; method: string; route: string; status: number; targets: Record<string, string>; source: string; at: number }[];
      expect(entries.map((e) => [e.method, e.route, e.status])).to.deep.equal([
        ['DELETE', '/v2/admin/operators/:name', 403],
        ['POST', '/v2/admin/devices/:deviceid/token', 200],
        ['POST', '/v2/admin/devices', 201],
      ]);
      expect(entries[1].targets).to.deep.equal({ deviceid: created.body.deviceid, projectid: created.body.projectid, groupid: 'g' });
      for (const e of entries) {
        expect(e.actor).to.equal(operator.name);
        expect(e.source).to.match(/127\.0\.0\.1/);
        expect(e.at).to.be.within(started, Date.now());
      }
      expect(res.text).to.not.include(created.body.token).and.not.include(rotated.body.token).and.not.include(operator.key);
    });

    it('names the bootstrap token\'s changes `bootstrap`, and reads are not recorded', async () => {
      const started = Date.now();
      const device = await aDevice(stackOf());
      await admin('GET', `/v2/admin/devices/${device.deviceid}`);

      const res = await admin('GET', `/v2/admin/audit?since=${started}&actor=bootstrap`);

      const mine = (res.body.entries as { targets: Record<string, string>; method: string; actor: string }[]).filter((e) => e.targets.deviceid === device.deviceid);
      expect(mine.map((e) => [e.actor, e.method])).to.deep.equal([['bootstrap', 'POST']]);
    });

    it('is an admin\'s to read (403 for an operator), with a bounded limit', async () => {
      const operator = await anOperator('operator');

      expectError(await operator.call('GET', '/v2/admin/audit'), 403, 'ROLE_FORBIDDEN');
      expectError(await admin('GET', '/v2/admin/audit?limit=5000'), 400, 'INVALID_QUERY');
      expect((await admin('GET', '/v2/admin/audit?limit=1')).body.entries).to.have.length(1);
    });
  });
}
