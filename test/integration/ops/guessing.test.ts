import { expect } from 'chai';
import { coapAs, expectCoapError } from '../../helpers/coap';
import { aDevice, TestDevice } from '../../helpers/devices';
import { httpFrom, mqttFrom } from '../../helpers/from-address';
import { endAll } from '../../helpers/mqtt';
import { scrape, valueOf } from '../../helpers/prometheus';
import { Stack, startStack } from '../../helpers/stack';

/** FAILURE_LIMITS.perPair (src/ratelimit/failure-throttle.ts): failures of one address against one target. */
const PER_PAIR = 10;
/** The guesser and the device itself, on two loopback addresses. */
const GUESSER = '127.0.0.1';
const OWNER = '127.0.0.2';

const wrong = (d: TestDevice) => ({ ...d, token: 'x'.repeat(d.token.length) });
const auth = (d: Pick<TestDevice, 'deviceid' | 'token'>) => `Device ${d.deviceid}:${d.token}`;

describe('guessing credentials is throttled per address and target, on every door (issue 20 §3)', function () {
  this.timeout(30_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const failures = async (door: string, reason: string) => valueOf(await scrape(stack), 'openpie_auth_failures_total', { door, reason });

  it('REST Device API: after 10 wrong tokens the address gets 429 TOO_MANY_FAILURES with Retry-After, even with the right one; the device from another address is served', async () => {
    const device = await aDevice(stack);
    const before = await failures('http', 'invalid_credentials');
    for (let i = 0; i < PER_PAIR; i++) {
      expect((await httpFrom(GUESSER, stack.baseUrl, 'GET', '/v2/device/status', { authorization: auth(wrong(device)) })).status).to.equal(401);
    }

    const throttled = await httpFrom(GUESSER, stack.baseUrl, 'GET', '/v2/device/status', { authorization: auth(device) });
    const owner = await httpFrom(OWNER, stack.baseUrl, 'GET', '/v2/device/status', { authorization: auth(device) });

    expect(throttled.status).to.equal(429);
    expect(throttled.body).to.include({ code: 'TOO_MANY_FAILURES' });
    expect(Number(throttled.headers['retry-after'])).to.be.within(590, 600);
    expect(owner.status).to.equal(200);
    expect((await failures('http', 'invalid_credentials')) - before).to.equal(PER_PAIR);
    expect(await failures('http', 'throttled')).to.be.at.least(1);
  });

  it('CoAP: 4.29 TOO_MANY_FAILURES with Max-Age after 10 wrong tokens; the device from another address is served', async () => {
    const device = await aDevice(stack);
    for (let i = 0; i < PER_PAIR; i++) {
      expectCoapError(await coapAs(stack.coapUrl, wrong(device), { localAddress: GUESSER })('GET', '/shadow/data'), '4.01', 401, 'INVALID_CREDENTIALS');
    }

    const throttled = await coapAs(stack.coapUrl, device, { localAddress: GUESSER })('GET', '/shadow/data');
    const owner = await coapAs(stack.coapUrl, device, { localAddress: OWNER })('GET', '/shadow/data');

    expectCoapError(throttled, '4.29', 429, 'TOO_MANY_FAILURES');
    expect(throttled.headers['Max-Age']).to.be.within(590, 600);
    expect(owner.code).to.equal('2.05');
  });

  for (const protocolVersion of [4, 5] as const) {
    it(`MQTT ${protocolVersion === 4 ? '3.1.1' : '5'} CONNECT: refused after 10 wrong tokens (${protocolVersion === 4 ? 'return code 3' : 'reason 0x9F'}) [MQTT-3.2.2-8]; the device from another address connects`, async () => {
      const device = await aDevice(stack);
      const options = (d: TestDevice) => ({ clientId: d.deviceid, username: d.token, protocolVersion });
      for (let i = 0; i < PER_PAIR; i++) {
        const refused = await mqttFrom(GUESSER, stack.mqttUrl, options(wrong(device))).then(() => undefined, (err: { code?: number }) => err.code);
        expect(refused).to.equal(protocolVersion === 4 ? 5 : 0x86);
      }

      const throttled = await mqttFrom(GUESSER, stack.mqttUrl, options(device)).then(() => undefined, (err: { code?: number }) => err.code);
      const owner = await mqttFrom(OWNER, stack.mqttUrl, options(device));

      expect(throttled).to.equal(protocolVersion === 4 ? 3 : 0x9f);
      expect(owner.connected).to.equal(true);
      await endAll(owner);
    });
  }

  it('the admin API (and the console log-in): 429 after 10 wrong admin tokens from one address, while the right token from another works', async () => {
    const guesser = '127.0.0.3';
    for (let i = 0; i < PER_PAIR; i++) {
      expect((await httpFrom(guesser, stack.baseUrl, 'GET', '/v2/admin/service', { authorization: 'Bearer wrong-admin-token-0000' })).status).to.equal(401);
    }

    const throttled = await httpFrom(guesser, stack.baseUrl, 'GET', '/v2/admin/service', { authorization: `Bearer ${stack.server.adminToken}` });
    const operator = await httpFrom('127.0.0.4', stack.baseUrl, 'GET', '/v2/admin/service', { authorization: `Bearer ${stack.server.adminToken}` });

    expect(throttled.status).to.equal(429);
    expect(throttled.body).to.include({ code: 'TOO_MANY_FAILURES' });
    expect(throttled.headers['retry-after']).to.match(/^\d+$/);
    expect(operator.status).to.equal(200);
    expect(await failures('admin', 'invalid_credentials')).to.be.at.least(PER_PAIR);
  });

  it('the data store: 429 after 10 wrong device tokens from one address; the device from another address queries', async () => {
    const device = await aDevice(stack);
    const query = { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: device.deviceid }] };
    const ask = (from: string, d: TestDevice) => httpFrom(from, stack.baseUrl, 'POST', '/v2/feed/api/v1/datapoints/query', { authorization: auth(d) }, query);
    for (let i = 0; i < PER_PAIR; i++) expect((await ask(GUESSER, wrong(device))).status).to.equal(401);

    const throttled = await ask(GUESSER, device);
    const owner = await ask(OWNER, device);

    expect(throttled.status).to.equal(429);
    expect(throttled.body).to.include({ code: 'TOO_MANY_FAILURES' });
    expect(owner.status).to.equal(200);
  });
});

describe('the admin token\'s length (issue 20 §3)', () => {
  async function startWarnings(adminToken: string): Promise<string[]> {
    const lines: { msg: string }[] = [];
    const stack = await startStack({
      env: { ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn' },
      logStream: { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) },
    });
    await stack.stop();
    return lines.map((l) => l.msg);
  }

  it('keeps a configured token of 16 to 31 characters working, with a warning at start naming the advised 32', async () => {
    const warnings = await startWarnings('sixteen-chars-ok-2026');

    expect(warnings.filter((m) => m.includes('ADMIN_TOKEN has fewer than 32 characters'))).to.have.length(1);
  });

  it('says nothing of a token of 32 characters or more', async () => {
    const warnings = await startWarnings('a-configured-admin-token-of-40-chars-xyz');

    expect(warnings.filter((m) => m.includes('ADMIN_TOKEN'))).to.deep.equal([]);
  });
});
