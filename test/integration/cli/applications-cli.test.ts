import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startStack, Stack } from '../../helpers/stack';

const run = promisify(execFile);
const CLI = join(__dirname, '../../../src/cli/main.ts');

describe('openpie CLI: application keys', function () {
  this.timeout(30_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const cli = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, OPENPIE_URL: stack.baseUrl, ADMIN_TOKEN: stack.server.adminToken },
    });
  const json = async (...args: string[]) => JSON.parse((await cli(...args)).stdout);

  it('creates a key (secret printed once), lists, shows, updates, rotates and revokes it', async () => {
    const created = await json('applications', 'create', '--project', 'p-cli', '--name', 'flows', '--groups', 'lights,doors');
    expect(created).to.include({ projectid: 'p-cli', name: 'flows', enabled: true });
    expect(created.groups).to.deep.equal(['lights', 'doors']);
    expect(created.secret).to.be.a('string');

    const listed = (await cli('applications', 'list', '--project', 'p-cli')).stdout;
    expect(JSON.parse(listed).applications.map((a: { key: string }) => a.key)).to.deep.equal([created.key]);
    expect(listed).to.not.include(created.secret);
    expect(await json('applications', 'show', created.key)).to.not.have.property('secret');

    const updated = await json('applications', 'update', created.key, '--enabled', 'false', '--groups', '');
    expect(updated).to.include({ enabled: false });
    expect(updated.groups).to.deep.equal([]);

    const rotated = await json('applications', 'rotate', created.key);
    expect(rotated.secret).to.be.a('string').and.not.equal(created.secret);

    expect(await json('applications', 'revoke', created.key)).to.deep.equal({ status: 204 });
    const gone = await cli('applications', 'show', created.key).catch((err) => err);
    expect(gone.code).to.equal(1);
    expect(JSON.parse(gone.stderr)).to.include({ status: 404, code: 'APPLICATION_NOT_FOUND' });
  });

  it('refuses a command without its key or project (usage, exit status 2)', async () => {
    const noKey = await cli('applications', 'rotate').catch((err) => err);
    const noProject = await cli('applications', 'create', '--name', 'x').catch((err) => err);
    const badFlag = await cli('applications', 'update', 'k', '--enabled', 'maybe').catch((err) => err);

    expect([noKey.code, noProject.code, badFlag.code]).to.deep.equal([2, 2, 2]);
    expect(noKey.stderr).to.include('takes exactly one <key>');
    expect(noProject.stderr).to.include('--project is required');
  });
});
