import { expect } from 'chai';
import { HttpResponse } from '../../helpers/http';
import { expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

describe('GET /console (the web console\'s files)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const expectStrictCsp = (res: HttpResponse) => {
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("default-src 'none'");
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.include("style-src 'self'");
    expect(csp).to.include("connect-src 'self'");
    expect(csp).to.include("frame-ancestors 'none'");
    expect(csp).to.not.include('unsafe-inline');
    expect(csp).to.not.include('unsafe-eval');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
  };

  it('serves the page at /console and /console/, under a strict Content-Security-Policy', async () => {
    for (const path of ['/console', '/console/']) {
      const res = await stack.http('GET', path);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.text).to.include('<script type="module" src="/console/app.js"></script>');
      expectStrictCsp(res);
    }
  });

  it('has no inline script or style, which the policy would block', async () => {
    const page = (await stack.http('GET', '/console')).text;
    expect(page).to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).to.not.match(/<style|\sstyle=|\son[a-z]+=/i);
  });

  it('serves its modules and stylesheet with their content types', async () => {
    const types: Record<string, string> = {
      'app.js': 'text/javascript; charset=utf-8',
      'chart.js': 'text/javascript; charset=utf-8',
      'console.css': 'text/css; charset=utf-8',
    };
    for (const [file, type] of Object.entries(types)) {
      const res = await stack.http('GET', `/console/${file}`);
      expect(res.status, file).to.equal(200);
      expect(res.headers.get('content-type'), file).to.equal(type);
      expectStrictCsp(res);
    }
  });

  it('imports only modules it serves', async () => {
    const app = await stack.http('GET', '/console/app.js');
    const imports = [...app.text.matchAll(/from '\.\/([a-z-]+\.js)'/g)].map((m) => m[1]);
    expect(imports).to.include('api.js');
    for (const file of imports) expect((await stack.http('GET', `/console/${file}`)).status, file).to.equal(200);
  });

  it('answers 304 to a revalidation with the same ETag', async () => {
    const first = await stack.http('GET', '/console/app.js');
    const etag = first.headers.get('etag');
    expect(etag).to.be.a('string');
    expect(first.headers.get('cache-control')).to.equal('no-cache');
    // A browser revalidating sends max-age=0 (fetch would send no-cache, which forbids a 304).
    const again = await stack.http('GET', '/console/app.js', { headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' } });
    expect(again.status).to.equal(304);
  });

  it('serves nothing else: not its folder\'s other files, not a path out of it', async () => {
    for (const path of ['/console/package.json', '/console/tsconfig.json', '/console/nope.js', '/console/..%2Fpackage.json', '/console/%2e%2e%2f%2e%2e%2fpackage.json']) {
      expectError(await stack.http('GET', path), 404, 'ROUTE_NOT_FOUND');
    }
  });
});
