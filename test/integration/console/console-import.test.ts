import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startStack, Stack } from '../../helpers/stack';

/**
 * The console's import page without a browser (console-browser.test.ts drives it in Chromium where there is one): the
 * page links it, its module is served, and the two calls it makes, a dry run and then the import of the same file,
 * answer as the page reads them.
 */
describe('the console\'s import page, over HTTP', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('is linked from the page and served as a module', async () => {
    const page = await stack.http('GET', '/console');
    const module = await stack.http('GET', '/console/import-view.js');

    expect(page.text).to.include('<a href="#/import">Import</a>');
    expect(module.status).to.equal(200);
    expect(module.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(module.text).to.include('/v2/admin/devices/import');
  });

  it('answers the page\'s dry run and then its import of the same CSV file', async () => {
    const projectid = `p-${randomUUID().slice(0, 8)}`;
    const csv = `projectid,groupid,alias\n${projectid},g,one\n`;
    const asConsole = { headers: { accept: 'application/json' }, body: csv, contentType: 'text/csv' };

    const dryRun = await stack.admin('POST', '/v2/admin/devices/import?dryRun=true', asConsole);
    const done = await stack.admin('POST', '/v2/admin/devices/import', asConsole);
    const again = await stack.admin('POST', '/v2/admin/devices/import?dryRun=true', asConsole);

    expect(dryRun.body).to.deep.include({ dryRun: true, count: 1 });
    expect(done.body.devices[0]).to.include.keys('deviceid', 'token', 'secret');
    expect(again.status).to.equal(409);
    expect(again.body.rowErrors).to.deep.equal([{ row: 1, line: 2, field: 'alias', code: 'ALIAS_TAKEN', message: `alias "one" is already used in group g` }]);
  });
});
