import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../../src/core/errors';
import { openApiDocument } from '../../../src/http/openapi/document';
import { httpClient, HttpClient, HttpResponse } from '../../helpers/http';
import { expectDocumentedResponse, OpenApiDocument, schemaValidator } from '../../helpers/openapi';
import { expectError } from '../../helpers/rest-device';
import { ApplicationStack, OtherNode, startApplicationStack } from './application-stack';

const doc = openApiDocument() as unknown as OpenApiDocument;
const aProject = () => `p-${randomUUID().slice(0, 8)}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The code a promise rejects with (an AppError's), or 'resolved'. */
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'resolved', (err: unknown) => (err instanceof AppError ? err.code : err));

describe(`application keys: /v2/admin/applications (${process.env.TEST_STORE === 'cassandra' ? 'Cassandra' : 'SQLite'})`, function () {
  this.timeout(60_000);
  let running: ApplicationStack;
  let other: OtherNode;
  let admin: HttpClient;
  const validator = schemaValidator(doc);
  const expectDocumented = (method: string, path: string, res: HttpResponse) => expectDocumentedResponse(doc, validator, { method, path }, res);

  before(async () => {
    running = await startApplicationStack();
    admin = running.stack.admin;
    other = await running.otherNode();
  });
  after(async () => {
    await other?.close();
    await running?.stop();
  });

  async function aKey(body: Record<string, unknown> = { projectid: aProject() }) {
    const res = await admin('POST', '/v2/admin/applications', { body });
    expect(res.status, res.text).to.equal(201);
    return res.body as { key: string; secret: string; projectid: string; name: string; groups: string[]; enabled: boolean; created: number };
  }
  async function anOperator(role: 'viewer' | 'operator', projects?: string[]) {
    const res = await admin('POST', '/v2/admin/operators', { body: { name: `${role}-${randomUUID().slice(0, 8)}`, role, ...(projects ? { projects } : {}) } });
    expect(res.status, res.text).to.equal(201);
    return httpClient(running.stack.baseUrl, { authorization: `Bearer ${res.body.key}` });
  }

  describe('POST /v2/admin/applications', () => {
    it('shows the key and its secret once, with Cache-Control: no-store, and no read shows the secret or its digest', async () => {
      const projectid = aProject();

      const res = await admin('POST', '/v2/admin/applications', { body: { projectid, name: 'node-red flows', groups: ['lights'] } });
      const one = await admin('GET', `/v2/admin/applications/${res.body.key}`);
      const list = await admin('GET', `/v2/admin/applications?projectid=${projectid}`);

      expect(res.status).to.equal(201);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.body).to.include({ projectid, name: 'node-red flows', enabled: true });
      expect(res.body.groups).to.deep.equal(['lights']);
      expect(res.body.key).to.match(UUID);
      expect(res.body.secret).to.match(/^[A-Za-z0-9]{43}$/);
      const { secret, ...shown } = res.body;
      expect(one.body).to.deep.equal(shown);
      expect(list.body).to.deep.equal({ applications: [shown], total: 1 });
      for (const read of [one, list]) {
        expect(read.headers.get('cache-control')).to.not.equal('no-store');
        expect(read.text).to.not.include(secret).and.not.include('hmac-sha256');
      }
      expectDocumented('POST', '/v2/admin/applications', res);
      expectDocumented('GET', '/v2/admin/applications/{key}', one);
      expectDocumented('GET', '/v2/admin/applications', list);
    });

    it('makes a project-wide key with an empty name when only the project is given', async () => {
      const made = await aKey({ projectid: aProject() });

      expect(made).to.include({ name: '', enabled: true });
      expect(made.groups).to.deep.equal([]);
    });

    it('keeps only the secret\'s keyed digest in the store', async () => {
      const made = await aKey();

      const stored = await other.storedSecret(made.key);

      expect(stored).to.match(/^hmac-sha256:[^:]+:[A-Za-z0-9_-]{43}$/);
      expect(stored).to.not.include(made.secret);
    });

    it('answers 400 with what is wrong: an unknown member, bad or repeated groups, no project, a bad name', async () => {
      const projectid = aProject();
      const cases: [Record<string, unknown>, string][] = [
        [{ projectid, secret: 'mine-0123456789abcdef' }, 'unknown member "secret"'],
        [{ projectid, groups: ['a/b'] }, 'groups.0: expected 1-64 characters'],
        [{ projectid, groups: ['lights', 'lights'] }, 'group "lights" is named twice'],
        [{ projectid, groups: 'lights' }, 'groups: expected an array'],
        [{ projectid, groups: Array.from({ length: 101 }, (_, i) => `g${i}`) }, 'at most 100 groups'],
        [{ name: 'x' }, 'projectid: required'],
        [{ projectid, name: 'a\u0000b' }, 'name: expected at most 128 characters without control characters'],
      ];
      for (const [body, problem] of cases) {
        const res = await admin('POST', '/v2/admin/applications', { body });
        expectError(res, 400, 'INVALID_BODY');
        expect(res.body.message, JSON.stringify(body)).to.include(problem);
        expect(res.body.errors).to.be.an('array').that.is.not.empty;
      }
      expectDocumented('POST', '/v2/admin/applications', await admin('POST', '/v2/admin/applications', { body: { projectid, x: 1 } }));
      expect((await admin('GET', `/v2/admin/applications?projectid=${projectid}`)).body.total).to.equal(0);
    });
  });

  describe('check(key, secret): the MQTT log-in, on another node of the same store', () => {
    it('admits the right secret and refuses a wrong one or an unknown key alike (INVALID_CREDENTIALS)', async () => {
      const made = await aKey({ projectid: aProject(), groups: ['lights'] });

      const admitted = await other.applications.check(made.key, made.secret);

      expect(admitted).to.include({ key: made.key, projectid: made.projectid, enabled: true });
      expect(admitted.groups).to.deep.equal(['lights']);
      expect(await codeOf(other.applications.check(made.key, `${made.secret.slice(0, -1)}x`))).to.equal('INVALID_CREDENTIALS');
      expect(await codeOf(other.applications.check(randomUUID(), made.secret))).to.equal('INVALID_CREDENTIALS');
      expect(await codeOf(other.applications.check('not-a-key', ''))).to.equal('INVALID_CREDENTIALS');
    });

    it('POST /:key/secret rotates: a new secret, shown once; the old one is refused from then on', async () => {
      const made = await aKey();

      const rotated = await admin('POST', `/v2/admin/applications/${made.key}/secret`);

      expect(rotated.status, rotated.text).to.equal(200);
      expect(rotated.headers.get('cache-control')).to.equal('no-store');
      expect(rotated.body).to.include({ key: made.key, projectid: made.projectid, created: made.created });
      expect(rotated.body.secret).to.match(/^[A-Za-z0-9]{43}$/).and.not.equal(made.secret);
      expect(await codeOf(other.applications.check(made.key, made.secret))).to.equal('INVALID_CREDENTIALS');
      expect((await other.applications.check(made.key, rotated.body.secret)).key).to.equal(made.key);
      expectDocumented('POST', '/v2/admin/applications/{key}/secret', rotated);
    });

    it('PATCH enabled: false refuses the right secret with APPLICATION_DISABLED (a wrong one stays INVALID_CREDENTIALS); true admits it again', async () => {
      const made = await aKey();

      const disabled = await admin('PATCH', `/v2/admin/applications/${made.key}`, { body: { enabled: false } });
      const whileDisabled = await codeOf(other.applications.check(made.key, made.secret));
      const wrongWhileDisabled = await codeOf(other.applications.check(made.key, 'wrong-secret'));
      const enabled = await admin('PATCH', `/v2/admin/applications/${made.key}`, { body: { enabled: true } });

      expect(disabled.status, disabled.text).to.equal(200);
      expect(disabled.body).to.include({ key: made.key, enabled: false });
      expect(disabled.body).to.not.have.property('secret');
      expect(whileDisabled).to.equal('APPLICATION_DISABLED');
      expect(wrongWhileDisabled).to.equal('INVALID_CREDENTIALS');
      expect(enabled.body.enabled).to.equal(true);
      expect((await other.applications.check(made.key, made.secret)).enabled).to.equal(true);
      expectDocumented('PATCH', '/v2/admin/applications/{key}', disabled);
    });

    it('DELETE /:key revokes: 204, then INVALID_CREDENTIALS, 404 APPLICATION_NOT_FOUND on a read and a second delete', async () => {
      const made = await aKey();

      const revoked = await admin('DELETE', `/v2/admin/applications/${made.key}`);

      expect(revoked.status).to.equal(204);
      expect(await codeOf(other.applications.check(made.key, made.secret))).to.equal('INVALID_CREDENTIALS');
      expectError(await admin('GET', `/v2/admin/applications/${made.key}`), 404, 'APPLICATION_NOT_FOUND');
      const again = await admin('DELETE', `/v2/admin/applications/${made.key}`);
      expectError(again, 404, 'APPLICATION_NOT_FOUND');
      expectDocumented('DELETE', '/v2/admin/applications/{key}', again);
    });
  });

  describe('PATCH /v2/admin/applications/:key', () => {
    it('renames and rescopes, keeping the secret; refuses a project, an unknown member and bad groups (400)', async () => {
      const made = await aKey({ projectid: aProject(), groups: ['a'] });

      const patched = await admin('PATCH', `/v2/admin/applications/${made.key}`, { body: { name: 'renamed', groups: ['b', 'c'] } });

      expect(patched.body).to.include({ name: 'renamed', projectid: made.projectid });
      expect(patched.body.groups).to.deep.equal(['b', 'c']);
      expect((await other.applications.check(made.key, made.secret)).groups).to.deep.equal(['b', 'c']);
      const moved = await admin('PATCH', `/v2/admin/applications/${made.key}`, { body: { projectid: 'elsewhere' } });
      expectError(moved, 400, 'INVALID_BODY');
      expect(moved.body.message).to.include('unknown member "projectid"');
      expectError(await admin('PATCH', `/v2/admin/applications/${made.key}`, { body: { groups: [''] } }), 400, 'INVALID_BODY');
      expectError(await admin('PATCH', `/v2/admin/applications/${made.key}`, { body: { enabled: 'no' } }), 400, 'INVALID_BODY');
    });

    it('answers 404 for an unknown key and 400 INVALID_QUERY for something that is not a key', async () => {
      expectError(await admin('PATCH', `/v2/admin/applications/${randomUUID()}`, { body: { name: 'x' } }), 404, 'APPLICATION_NOT_FOUND');
      expectError(await admin('POST', `/v2/admin/applications/${randomUUID()}/secret`), 404, 'APPLICATION_NOT_FOUND');
      const bad = await admin('GET', '/v2/admin/applications/NOT-A-KEY');
      expectError(bad, 400, 'INVALID_QUERY');
      expect(bad.body.message).to.include('UUID');
    });
  });

  describe('GET /v2/admin/applications', () => {
    it('pages a project\'s keys oldest first, `total` counting them all; refuses a bad query (400 INVALID_QUERY)', async () => {
      const projectid = aProject();
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await aKey({ projectid, name: `k${i}` }));

      const page = await admin('GET', `/v2/admin/applications?projectid=${projectid}&limit=2&offset=1`);

      expect(page.body.total).to.equal(3);
      expect(page.body.applications.map((a: { name: string }) => a.name)).to.deep.equal(['k1', 'k2']);
      expectError(await admin('GET', '/v2/admin/applications?limit=0'), 400, 'INVALID_QUERY');
      expectError(await admin('GET', '/v2/admin/applications?group=x'), 400, 'INVALID_QUERY');
    });
  });

  describe('roles and projects', () => {
    it('a viewer reads keys and changes none (403 ROLE_FORBIDDEN)', async () => {
      const made = await aKey();
      const viewer = await anOperator('viewer', [made.projectid]);

      const read = await viewer('GET', `/v2/admin/applications/${made.key}`);
      const list = await viewer('GET', `/v2/admin/applications?projectid=${made.projectid}`);

      expect(read.status).to.equal(200);
      expect(list.body.total).to.equal(1);
      const create = await viewer('POST', '/v2/admin/applications', { body: { projectid: made.projectid } });
      expectError(create, 403, 'ROLE_FORBIDDEN');
      expectDocumented('POST', '/v2/admin/applications', create);
      expectError(await viewer('POST', `/v2/admin/applications/${made.key}/secret`), 403, 'ROLE_FORBIDDEN');
      expectError(await viewer('PATCH', `/v2/admin/applications/${made.key}`, { body: { enabled: false } }), 403, 'ROLE_FORBIDDEN');
      expectError(await viewer('DELETE', `/v2/admin/applications/${made.key}`), 403, 'ROLE_FORBIDDEN');
      expect((await other.applications.check(made.key, made.secret)).enabled).to.equal(true);
    });

    it('an operator of project P manages P\'s keys and neither sees nor touches Q\'s (403 PROJECT_FORBIDDEN)', async () => {
      const [p, q] = [aProject(), aProject()];
      const theirs = await aKey({ projectid: q });
      const operator = await anOperator('operator', [p]);

      const mine = await operator('POST', '/v2/admin/applications', { body: { projectid: p } });
      const listed = await operator('GET', '/v2/admin/applications');

      expect(mine.status, mine.text).to.equal(201);
      expect(listed.body.applications.map((a: { projectid: string }) => a.projectid)).to.deep.equal([p]);
      expect(listed.text).to.not.include(theirs.key);
      expectError(await operator('POST', '/v2/admin/applications', { body: { projectid: q } }), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator('GET', `/v2/admin/applications?projectid=${q}`), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator('GET', `/v2/admin/applications/${theirs.key}`), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator('PATCH', `/v2/admin/applications/${theirs.key}`, { body: { enabled: false } }), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator('POST', `/v2/admin/applications/${theirs.key}/secret`), 403, 'PROJECT_FORBIDDEN');
      expectError(await operator('DELETE', `/v2/admin/applications/${theirs.key}`), 403, 'PROJECT_FORBIDDEN');
      expect((await other.applications.check(theirs.key, theirs.secret)).enabled).to.equal(true);
    });
  });

  it('writes every change to the audit log, refused ones too, and never a secret', async () => {
    const projectid = aProject();
    const made = await aKey({ projectid, name: 'audited' });
    await admin('PATCH', `/v2/admin/applications/${made.key}`, { body: { enabled: false } });
    const rotated = await admin('POST', `/v2/admin/applications/${made.key}/secret`);
    await admin('DELETE', `/v2/admin/applications/${made.key}`);
    await admin('DELETE', `/v2/admin/applications/${made.key}`);

    const audit = await admin('GET', '/v2/admin/audit?actor=bootstrap&limit=20');

    type Entry = { method: string; route: string; status: number; targets: Record<string, string> };
    const ours = (audit.body.entries as Entry[]).filter((e) => e.targets.key === made.key);
    expect(ours.map((e) => [e.method, e.route, e.status]).reverse()).to.deep.equal([
      ['POST', '/v2/admin/applications', 201],
      ['PATCH', '/v2/admin/applications/:key', 200],
      ['POST', '/v2/admin/applications/:key/secret', 200],
      ['DELETE', '/v2/admin/applications/:key', 204],
      ['DELETE', '/v2/admin/applications/:key', 404],
    ]);
    expect(audit.text).to.not.include(made.secret).and.not.include(rotated.body.secret);
  });
});
