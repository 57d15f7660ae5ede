import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startStack, Stack } from '../../helpers/stack';

const run = promisify(execFile);
const CLI = join(__dirname, '../../../src/cli/main.ts');

describe('openpie CLI: operators and the audit log', function () {
  this.timeout(30_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const cli = (env: Record<string, string>, ...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { ...process.env, OPENPIE_URL: stack.baseUrl, ADMIN_TOKEN: stack.server.adminToken, ...env } });

  it('creates an operator (key printed once), acts with its key (OPENPIE_KEY) within its role, and reads the audit log', async () => {
    const created = JSON.parse((await cli({}, 'operators', 'create', 'olga', '--role', 'operator', '--projects', 'p1,p2')).stdout);
    expect(created).to.include({ name: 'olga', role: 'operator' });
    expect(created.projects).to.deep.equal(['p1', 'p2']);
    const listed = (await cli({}, 'operators', 'list')).stdout;
    expect(listed).to.include('olga').and.not.include(created.key);

    const device = JSON.parse((await cli({ OPENPIE_KEY: created.key }, 'devices', 'create', '--project', 'p1', '--group', 'g', '--alias', 'a')).stdout);
    const refused = await cli({ OPENPIE_KEY: created.key }, 'devices', 'create', '--project', 'p3', '--group', 'g', '--alias', 'a').catch((err) => err);
    expect(device.projectid).to.equal('p1');
    expect(refused.code).to.equal(1);
    expect(JSON.parse(refused.stderr)).to.include({ status: 403, code: 'PROJECT_FORBIDDEN' });

    const audit = JSON.parse((await cli({}, 'audit', 'list', '--actor', 'olga', '--limit', '10')).stdout);
    expect(audit.entries.map((e: { status: number }) => e.status)).to.deep.equal([403, 201]);

    const rotated = JSON.parse((await cli({}, 'operators', 'rotate-key', 'olga')).stdout);
    expect(rotated.key).to.be.a('string').and.not.equal(created.key);
    await cli({}, 'operators', 'delete', 'olga');
    const gone = await cli({}, 'operators', 'show', 'olga').catch((err) => err);
    expect(JSON.parse(gone.stderr)).to.include({ status: 404, code: 'OPERATOR_NOT_FOUND' });
  });
});
