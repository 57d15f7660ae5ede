import { expect } from 'chai';
import { OpenApiDocument } from '../../helpers/openapi';
import { Stack, startStack } from '../../helpers/stack';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

describe('GET /trial: the trial explorer', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  for (const path of ['/trial', '/trial/']) {
    it(`answers ${path} with a page that loads Swagger UI from the service itself`, async () => {
      const res = await stack.http('GET', path);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.text).to.contain('<script src="/trial/swagger-ui-bundle.js"></script>');
      expect(res.text).to.contain('href="/trial/swagger-ui.css"');
      expect(res.text).to.contain('<script src="/trial/trial.js"></script>');
      // No CDN: the machine may have no internet.
      expect(res.text).to.not.match(/https?:\/\//);
    });
  }

  it('points the explorer at its own document, without the online validator', async () => {
    const res = await stack.http('GET', '/trial/trial.js');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(res.text).to.contain("url: '/trial/openapi.json'");
    expect(res.text).to.contain('validatorUrl: null');
  });

  describe('GET /trial/openapi.json: each operation once (issue 24 §4)', () => {
    const operationsOf = (doc: OpenApiDocument) =>
      Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((k) => HTTP_METHODS.has(k)).map((m) => `${m.toUpperCase()} ${path}`));
    const withoutV2 = (operation: string) => operation.replace(' /v2/', ' /');

    it('lists every operation of /openapi.json once, at its /v2 path, and none twice', async () => {
      const full = operationsOf((await stack.http('GET', '/openapi.json')).body);
      const shown = operationsOf((await stack.http('GET', '/trial/openapi.json')).body);

      const aliases = full.filter((op) => / \/(device|feed)(\/|$)/.test(op));
      expect(aliases.length).to.be.greaterThan(15);
      expect(shown).to.have.length(full.length - aliases.length);
      expect(new Set(shown.map(withoutV2)).size).to.equal(shown.length);
      expect(new Set(full.map(withoutV2))).to.deep.equal(new Set(shown.map(withoutV2)));
      expect(shown).to.include('PUT /v2/device/shadow/data').and.not.include('PUT /device/shadow/data');
    });

    it('explains the alias bases in one line, and keeps no tag only the aliases used', async () => {
      const doc = (await stack.http('GET', '/trial/openapi.json')).body;

      expect(doc.info.description.split('\n')[0]).to.match(/`\/device`.*`\/feed`/);
      expect(doc.tags.map((t: { name: string }) => t.name)).to.not.include('Device API (/device alias)');
    });
  });

  it('serves the bundle and the stylesheet from swagger-ui-dist with their content types', async () => {
    const js = await stack.http('GET', '/trial/swagger-ui-bundle.js');
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(js.text).to.contain('SwaggerUIBundle');
    const css = await stack.http('GET', '/trial/swagger-ui.css');
    expect(css.status).to.equal(200);
    expect(css.headers.get('content-type')).to.equal('text/css; charset=utf-8');
    expect(css.text).to.contain('.swagger-ui');
  });

  it('lets browsers cache the files and revalidate them with 304', async () => {
    const first = await stack.http('GET', '/trial/swagger-ui.css');
    expect(first.headers.get('cache-control')).to.equal('public, max-age=86400');
    const etag = first.headers.get('etag');
    expect(etag).to.be.a('string');
    // A browser revalidating sends max-age=0 (fetch would send no-cache, which forbids a 304).
    const again = await stack.http('GET', '/trial/swagger-ui.css', { headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
  });

  it('answers HEAD with the length and no body', async () => {
    const res = await stack.http('HEAD', '/trial/swagger-ui-bundle.js');
    expect(res.status).to.equal(200);
    expect(Number(res.headers.get('content-length'))).to.be.greaterThan(100_000);
    expect(res.text).to.equal('');
  });

  for (const name of ['package.json', 'index.html', '..%2Fpackage.json', 'swagger-ui-bundle.js.map']) {
    it(`serves no other file of the package: ${name}`, async () => {
      const res = await stack.http('GET', `/trial/${name}`);
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ code: 'ROUTE_NOT_FOUND' });
    });
  }
});
