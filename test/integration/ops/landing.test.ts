import { expect } from 'chai';
import { startStack, Stack } from '../../helpers/stack';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('GET /: the front door', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('answers API clients (curl\'s Accept: */*, or JSON) with JSON links', async () => {
    for (const accept of ['*/*', 'application/json']) {
      const res = await stack.http('GET', '/', { headers: { accept } });

      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body.service).to.equal('openpie');
      expect(res.body.links).to.include({ console: '/console', trial: '/trial', openapi: '/openapi.json', docs: '/docs/' });
    }
  });

  it('answers browsers with a small HTML page that links the console, the explorer, the document and the docs', async () => {
    const res = await stack.http('GET', '/', { headers: { accept: BROWSER_ACCEPT } });

    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    for (const href of ['/console', '/trial', '/openapi.json', '/docs/']) expect(res.text).to.contain(`href="${href}"`);
    expect(res.headers.get('content-security-policy')).to.contain("default-src 'none'");
    expect(res.text).to.not.match(/<script/);
  });

  it('serves the docs as text: a list at /docs/, each file at /docs/{file}', async () => {
    const index = await stack.http('GET', '/docs/', { headers: { accept: BROWSER_ACCEPT } });
    const page = await stack.http('GET', '/docs/data-store.md');
    const readme = await stack.http('GET', '/docs/README.md');
    const other = await stack.http('GET', '/docs/..%2Fpackage.json');

    expect(index.status).to.equal(200);
    expect(index.text).to.contain('href="/docs/data-store.md"').and.contain('href="/docs/README.md"');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/plain; charset=utf-8/);
    expect(page.text).to.match(/^# Data-store API/);
    expect(readme.text).to.match(/^# openpie/);
    expect(other.status).to.equal(404);
  });
});
