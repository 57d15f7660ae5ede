import { expect } from 'chai';
import Koa from 'koa';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { version } from '../../../package.json';
import { errorMiddleware } from '../../../src/http/error-middleware';
import { landingRouter, LandingRouterDeps } from '../../../src/http/landing-router';
import { httpClient, HttpClient } from '../../helpers/http';
import { Stack, startStack } from '../../helpers/stack';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const asBrowser = { headers: { accept: BROWSER_ACCEPT } };

describe('GET /: the landing page (issue 24 §4)', function () {
  this.timeout(30_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack({ env: { METRICS_TOKEN: 'a-metrics-token-nobody-should-see' } });
  });
  after(() => stack.stop());

  it('says what runs: the version, the HTTP port and MQTT over WebSocket on it', async () => {
    const res = await stack.http('GET', '/', asBrowser);
    const port = new URL(stack.baseUrl).port;

    expect(res.status).to.equal(200);
    expect(res.text).to.contain(`<dd>${version}</dd>`);
    expect(res.text).to.contain(`<dt>HTTP</dt><dd><code>${port}</code></dd>`);
    expect(res.text).to.contain(`<dt>MQTT over WebSocket (/mqtt)</dt><dd><code>${port}</code></dd>`);
  });

  it('says the node, store, time-series engine, MQTT and CoAP ports, and the health /readyz reports', async () => {
    const res = await stack.http('GET', '/', asBrowser);
    const ready = await stack.http('GET', '/readyz');

    expect(res.text).to.match(/<dt>Node<\/dt><dd>[^<]+<\/dd>/);
    expect(res.text).to.match(/<dt>Store<\/dt><dd>(sqlite|cassandra)<\/dd><dt>Time series<\/dt><dd>(embedded|kairosdb)<\/dd>/);
    expect(res.text).to.contain(`<dt>MQTT</dt><dd><code>${stack.server.mqttPort}</code></dd>`);
    expect(res.text).to.contain(`<dt>CoAP (UDP)</dt><dd><code>${stack.server.coapPort}</code></dd>`);
    expect(res.text).to.contain('<span id="health" class="status ok">ready</span>');
    for (const check of Object.keys(ready.body.checks)) expect(res.text).to.contain(`<dt>${check}</dt>`);
  });

  it('says /metrics needs its token, without showing it', async () => {
    const res = await stack.http('GET', '/', asBrowser);

    expect(res.text).to.contain('Authorization: Bearer &lt;METRICS_TOKEN&gt;');
  });

  it('links the console, the docs, the explorer, the OpenAPI document and /metrics', async () => {
    const res = await stack.http('GET', '/', asBrowser);

    for (const href of ['/console', '/docs/', '/trial', '/openapi.json', '/metrics']) expect(res.text).to.contain(`href="${href}"`);
  });

  it('shows no secret: neither the admin token nor the metrics token', async () => {
    const res = await stack.http('GET', '/', asBrowser);

    expect(res.text).to.not.contain(stack.server.adminToken);
    expect(res.text).to.not.contain('a-metrics-token-nobody-should-see');
  });

  it('is styled by the service\'s own stylesheet under the pages\' CSP, with no script', async () => {
    const res = await stack.http('GET', '/', asBrowser);

    expect(res.headers.get('content-security-policy')).to.contain("default-src 'none'").and.contain("style-src 'self'");
    expect(res.text).to.contain('<link rel="stylesheet" href="/docs/pages.css">');
    expect(res.text).to.not.match(/<script|style="|https?:\/\//);
  });

  it('still answers API clients with JSON links, /metrics among them', async () => {
    const res = await stack.http('GET', '/', { headers: { accept: '*/*' } });

    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.body).to.deep.include({ service: 'openpie', version });
    expect(res.body.links).to.include({ console: '/console', docs: '/docs/', metrics: '/metrics' });
  });
});

describe('landingRouter: what the composition tells it', () => {
  let server: Server;
  let http: HttpClient;
  const start = async (deps: LandingRouterDeps) => {
    const app = new Koa();
    app.use(errorMiddleware(pino({ level: 'silent' })));
    app.use(landingRouter(deps).routes());
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    http = httpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  };
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  it('shows the node, store, time-series engine and every listener it is given', async () => {
    await start({
      serviceFacts: () => ({
        nodeId: 'node-a',
        store: 'cassandra',
        timeseries: 'kairosdb',
        listeners: [{ name: 'HTTP', port: 8080 }, { name: 'MQTT', port: 1883 }, { name: 'CoAP (UDP)', port: 5683 }],
      }),
    });

    const res = await http('GET', '/', asBrowser);

    expect(res.text).to.contain('<dt>Node</dt><dd>node-a</dd>').and.contain('<dt>Store</dt><dd>cassandra</dd>');
    expect(res.text).to.contain('<dt>Time series</dt><dd>kairosdb</dd>').and.contain('<dt>CoAP (UDP)</dt><dd><code>5683</code></dd>');
  });

  it('says "not ready" and which check fails, without the failure\'s message', async () => {
    await start({
      readiness: [
        { name: 'sqlite', check: async () => undefined },
        { name: 'kairosdb', check: async () => { throw new Error('connect ECONNREFUSED 10.0.0.7:8080'); } },
      ],
    });

    const res = await http('GET', '/', asBrowser);

    expect(res.status).to.equal(200);
    expect(res.text).to.contain('<span id="health" class="status fail">not ready</span>');
    expect(res.text).to.match(/<dt>kairosdb<\/dt><dd><span class="status fail">failing/);
    expect(res.text).to.not.contain('10.0.0.7');
  });

  it('says /metrics is open when no METRICS_TOKEN is set', async () => {
    await start({});

    const res = await http('GET', '/', asBrowser);

    expect(res.text).to.contain('open: METRICS_TOKEN is not set');
  });
});
