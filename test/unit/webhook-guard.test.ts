import { expect } from 'chai';
import { lookup as dnsLookup } from 'node:dns';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/config';
import { allowEntryProblem, createAddressGuard } from '../../src/triggers/address-guard';
import { createWebhookSender } from '../../src/triggers/webhook';

/** A resolver that answers every name with `address`, as a DNS record pointing a public name inwards would. */
const resolvingTo = (address: string, family = 4) =>
  ((_host: string, _options: unknown, callback: (err: null, addresses: { address: string; family: number }[]) => void) =>
    callback(null, [{ address, family }])) as unknown as typeof dnsLookup;

describe('webhook address guard (SSRF)', () => {
  const guard = createAddressGuard([]);

  const refused = ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '192.0.2.1', '198.18.0.1', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:a00:1::', '2001:db8::1', '[::1]'];
  for (const address of refused) {
    it(`refuses ${address}`, () => expect(guard.refusal('example.com', address)).to.match(/not a public address/));
  }

  const allowed = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];
  for (const address of allowed) {
    it(`lets ${address} through`, () => expect(guard.refusal('example.com', address)).to.equal(undefined));
  }

  it('lets the operator allow host names, addresses and CIDR ranges', () => {
    const allowing = createAddressGuard(['hooks.internal', '10.1.0.0/16', '::1', '127.0.0.1']);
    expect(allowing.refusal('hooks.internal', '192.168.1.1')).to.equal(undefined);
    expect(allowing.refusal('x.example', '10.1.200.3')).to.equal(undefined);
    expect(allowing.refusal('x.example', '10.2.0.1')).to.match(/not a public address/);
    expect(allowing.refusal('x.example', '::1')).to.equal(undefined);
    expect(allowing.hostRefusal('127.0.0.1')).to.equal(undefined);
    expect(allowing.hostRefusal('localhost')).to.match(/loopback name/);
  });

  it('refuses localhost by name before any lookup', () => {
    expect(guard.hostRefusal('localhost')).to.match(/loopback name/);
    expect(guard.hostRefusal('api.localhost')).to.match(/loopback name/);
    expect(guard.hostRefusal('example.com')).to.equal(undefined);
  });

  it('reads WEBHOOK_ALLOW_HOSTS, refusing what is none of a name, an address or a range', () => {
    expect(loadConfig({ WEBHOOK_ALLOW_HOSTS: ' 127.0.0.1, 10.0.0.0/8 ,hooks.internal' }).webhooks.allowHosts)
      .to.deep.equal(['127.0.0.1', '10.0.0.0/8', 'hooks.internal']);
    expect(loadConfig({}).webhooks).to.deep.equal({ allowHosts: [], timeoutMs: 5000, maxAttempts: 3 });
    expect(() => loadConfig({ WEBHOOK_ALLOW_HOSTS: '10.0.0.0/40' })).to.throw(/WEBHOOK_ALLOW_HOSTS.*prefix too long/);
    expect(() => loadConfig({ WEBHOOK_ALLOW_HOSTS: 'http://x' })).to.throw(/WEBHOOK_ALLOW_HOSTS/);
    expect(() => loadConfig({ WEBHOOK_MAX_ATTEMPTS: '0' })).to.throw(/WEBHOOK_MAX_ATTEMPTS/);
    expect(allowEntryProblem('fd00::/8')).to.equal(undefined);
  });
});

describe('webhook sender', () => {
  let server: Server;
  let url: string;
  const statuses: number[] = [];
  let hits = 0;
  before(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url === '/slow') return void setTimeout(() => res.end(), 1000);
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    hits = 0;
    statuses.length = 0;
  });

  const sender = (options: Partial<Parameters<typeof createWebhookSender>[0]> = {}) =>
    createWebhookSender({ guard: createAddressGuard(['127.0.0.1']), timeoutMs: 300, maxAttempts: 3, backoffMs: 10, userAgent: 'test', ...options });

  it('refuses a name that resolves to a private address, checked as the connection resolves it, without retrying', async () => {
    const outcome = await sender({ guard: createAddressGuard([]), lookup: resolvingTo('10.0.0.7') }).send({ method: 'GET', uri: 'http://hooks.example.com/x', headers: {} });
    expect(outcome).to.include({ outcome: 'refused', attempts: 1 });
    expect(outcome.error).to.match(/hooks\.example\.com: 10\.0\.0\.7 is not a public address/);
  });

  it('connects to the address it checked', async () => {
    const port = new URL(url).port;
    const outcome = await sender({ lookup: resolvingTo('127.0.0.1') }).send({ method: 'GET', uri: `http://allowed.example:${port}/ok`, headers: {} });
    expect(outcome).to.include({ outcome: 'delivered', status: 200 });
  });

  it('retries 5xx and 429 up to the attempt limit', async () => {
    statuses.push(500, 429, 502);
    const outcome = await sender().send({ method: 'POST', uri: `${url}/x`, headers: {}, body: 'x' });
    expect(outcome).to.include({ outcome: 'failed', attempts: 3, status: 502, error: 'HTTP 502' });
    expect(hits).to.equal(3);
  });

  it('does not follow redirects', async () => {
    statuses.push(302);
    const outcome = await sender().send({ method: 'GET', uri: `${url}/x`, headers: {} });
    expect(outcome).to.include({ outcome: 'failed', attempts: 1, status: 302 });
  });

  it('gives up on an attempt after the timeout and retries', async () => {
    const outcome = await sender({ maxAttempts: 2 }).send({ method: 'GET', uri: `${url}/slow`, headers: {} });
    expect(outcome).to.include({ outcome: 'failed', attempts: 2, error: 'no answer within 300 ms' });
  });

  it('fails a connection that is refused, and stops at once when closed', async () => {
    const closing = sender({ maxAttempts: 10, backoffMs: 60_000 });
    const pending = closing.send({ method: 'GET', uri: 'http://127.0.0.1:1/x', headers: {} });
    setTimeout(() => closing.close(), 50);
    const outcome = await pending;
    expect(outcome.outcome).to.equal('failed');
    expect(outcome.attempts).to.equal(1);
  });
});
