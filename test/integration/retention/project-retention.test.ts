import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { aDevice } from '../../helpers/devices';
import { httpClient } from '../../helpers/http';
import { pointsOf } from '../../helpers/mqtt-shadow';
import { asDevice, expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const run = promisify(execFile);
const CLI = join(__dirname, '../../../src/cli/main.ts');
const DAY = 86_400_000;
const newProject = () => `p-${randomUUID().slice(0, 8)}`;
const path = (projectid: string) => `/v2/admin/projects/${projectid}/retention`;

describe("a project's retention of points (issue 23 §2)", function () {
  this.timeout(30_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack({ env: { POINT_RETENTION: '90d' } });
  });
  after(() => stack.stop());

  describe('GET, PUT, DELETE /v2/admin/projects/:projectid/retention', () => {
    it('answers the service default for a project without a retention of its own', async () => {
      const projectid = newProject();

      const res = await stack.admin('GET', path(projectid));

      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ projectid, retention: null, serviceDefault: '90d', effective: '90d', effectiveMs: 90 * DAY });
    });

    it("sets the project's retention, in NETPIE ttl units or as a number of ms, and drops it back to the default", async () => {
      const projectid = newProject();

      const set = await stack.admin('PUT', path(projectid), { body: { retention: '30d' } });
      expect(set.status, set.text).to.equal(200);
      expect(set.body).to.deep.equal({ projectid, retention: '30d', serviceDefault: '90d', effective: '30d', effectiveMs: 30 * DAY });
      expect((await stack.admin('PUT', path(projectid), { body: { retention: 90_000 } })).body).to.include({ retention: '90s', effectiveMs: 90_000 });
      expect((await stack.admin('GET', path(projectid))).body).to.include({ retention: '90s' });

      const dropped = await stack.admin('DELETE', path(projectid));

      expect(dropped.status).to.equal(204);
      expect((await stack.admin('GET', path(projectid))).body).to.include({ retention: null, effective: '90d' });
      expect((await stack.admin('DELETE', path(projectid))).status).to.equal(204);
    });

    const bad: [string, unknown, string][] = [
      ['a duration in words', { retention: '30 days' }, 'INVALID_BODY'],
      ['an unknown unit', { retention: '2w' }, 'INVALID_BODY'],
      ['zero', { retention: 0 }, 'INVALID_BODY'],
      ['more than 20 years', { retention: '21y' }, 'INVALID_BODY'],
      ['no retention', {}, 'INVALID_BODY'],
      ['an unknown member', { retention: '1d', ttl: '1d' }, 'INVALID_BODY'],
      ['not JSON', '{', 'INVALID_JSON'],
    ];
    for (const [what, body, code] of bad) {
      it(`refuses ${what}: 400 ${code}, changing nothing`, async () => {
        const projectid = newProject();
        expectError(await stack.admin('PUT', path(projectid), { body }), 400, code);
        expect((await stack.admin('GET', path(projectid))).body).to.include({ retention: null });
      });
    }

    it('refuses a bad project id: 400 INVALID_QUERY', async () => {
      expectError(await stack.admin('GET', path('-x')), 400, 'INVALID_QUERY');
    });

    it("lets an operator change its projects' retention only, and a viewer read it", async () => {
      const mine = newProject();
      const theirs = newProject();
      const operatorOf = async (role: string) => {
        const res = await stack.admin('POST', '/v2/admin/operators', { body: { name: `${role}-${randomUUID().slice(0, 8)}`, role, projects: [mine] } });
        expect(res.status, res.text).to.equal(201);
        return httpClient(stack.baseUrl, { authorization: `Bearer ${res.body.key}` });
      };
      const operator = await operatorOf('operator');
      const viewer = await operatorOf('viewer');

      expect((await operator('PUT', path(mine), { body: { retention: '7d' } })).status).to.equal(200);
      expect((await viewer('GET', path(mine))).body).to.include({ retention: '7d' });
      expectError(await operator('PUT', path(theirs), { body: { retention: '7d' } }), 403, 'PROJECT_FORBIDDEN');
      expectError(await viewer('GET', path(theirs)), 403, 'PROJECT_FORBIDDEN');
      expectError(await viewer('DELETE', path(mine)), 403, 'ROLE_FORBIDDEN');
      expect((await stack.admin('GET', path(theirs))).body).to.include({ retention: null });
    });
  });

  describe('the points of shadow writes (embedded engine)', () => {
    it("expire a project's retention after their time once it is set, from the next write on; earlier ones are kept", async () => {
      const device = await aDevice(stack, { projectid: newProject() });
      const write = (temp: number) => asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { temp } } });
      expect((await write(1)).status).to.equal(200);

      expect((await stack.admin('PUT', path(device.projectid), { body: { retention: '1500ms' } })).status).to.equal(200);
      expect((await write(2)).status).to.equal(200);
      const written = Date.now();
      expect((await pointsOf(stack, device, 'temp')).map(([, v]) => v)).to.deep.equal([1, 2]);

      // The write's time is the server's, a moment before `written`: its point has expired 1.5 s after it.
      await new Promise((r) => setTimeout(r, written + 1600 - Date.now()));

      expect((await pointsOf(stack, device, 'temp')).map(([, v]) => v)).to.deep.equal([1]);
    });
  });

  describe('openpie retention', () => {
    const cli = (...args: string[]) =>
      run(process.execPath, ['--import', 'tsx', CLI, ...args], {
        env: { ...process.env, OPENPIE_URL: stack.baseUrl, ADMIN_TOKEN: stack.server.adminToken },
      });

    it('sets, shows and clears a retention; a bad duration is the service\'s 400', async () => {
      const projectid = newProject();

      expect(JSON.parse((await cli('retention', 'set', '--project', projectid, '12h')).stdout)).to.include({ retention: '12h', effective: '12h' });
      expect(JSON.parse((await cli('retention', 'show', '--project', projectid)).stdout)).to.include({ retention: '12h' });
      expect(JSON.parse((await cli('retention', 'clear', '--project', projectid)).stdout)).to.deep.equal({ status: 204 });
      expect(JSON.parse((await cli('retention', 'show', '--project', projectid)).stdout)).to.include({ retention: null, effective: '90d' });

      const refused = await cli('retention', 'set', '--project', projectid, 'soon').catch((err) => err);
      expect(refused.code).to.equal(1);
      expect(JSON.parse(refused.stderr)).to.include({ status: 400, code: 'INVALID_BODY' });
    });
  });
});
