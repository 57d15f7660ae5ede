import { expect } from 'chai';
import { startStack, Stack } from '../../helpers/stack';

// The console's Applications page is served, linked from the navigation and routed by app.js. (Its behaviour in a
// browser is not driven here: console-browser.test.ts shows how, should it grow.)
describe('GET /console: the Applications page', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('serves applications-view.js as a module, linked from the navigation and routed by app.js', async () => {
    const view = await stack.http('GET', '/console/applications-view.js');
    const app = await stack.http('GET', '/console/app.js');
    const page = await stack.http('GET', '/console');

    expect(view.status).to.equal(200);
    expect(view.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(view.text).to.include('export function applicationsView(');
    expect(view.text).to.include("'/v2/admin/applications'");
    expect(app.text).to.include("import { applicationsView } from './applications-view.js';");
    expect(page.text).to.include('<a href="#/applications">Applications</a>');
  });
});
