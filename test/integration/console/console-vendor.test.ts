import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const installed = (pkg: string, file: string) => readFileSync(join(dirname(require.resolve(`${pkg}/package.json`)), file));

/** The two libraries of the console (issue 24 §1, §3), served from node_modules by name only. */
describe('GET /console/vendor/{file} (uPlot and mqtt.js from node_modules)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('serves uPlot\'s module and stylesheet and mqtt.js\'s browser bundle, byte for byte, under the page CSP', async () => {
    const files: [string, string, string, string][] = [
      ['uPlot.esm.js', 'uplot', 'dist/uPlot.esm.js', 'text/javascript; charset=utf-8'],
      ['uPlot.min.css', 'uplot', 'dist/uPlot.min.css', 'text/css; charset=utf-8'],
      ['mqtt.esm.js', 'mqtt', 'dist/mqtt.esm.js', 'text/javascript; charset=utf-8'],
    ];
    for (const [name, pkg, file, type] of files) {
      const res = await stack.http('GET', `/console/vendor/${name}`);
      expect(res.status, name).to.equal(200);
      expect(res.headers.get('content-type'), name).to.equal(type);
      expect(res.text, name).to.equal(installed(pkg, file).toString('utf8'));
      expect(res.headers.get('content-security-policy'), name).to.include("script-src 'self'");
      expect(res.headers.get('etag'), name).to.be.a('string');
    }
  });

  it('serves no other file of node_modules', async () => {
    const others = ['uPlot.cjs.js', 'package.json', '..%2F..%2Fpackage.json', 'app.js'];
    for (const path of others.map((name) => `/console/vendor/${name}`)) {
      expectError(await stack.http('GET', path), 404, 'ROUTE_NOT_FOUND');
    }
  });
});
