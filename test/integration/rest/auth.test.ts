import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice } from '../../helpers/devices';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

const basic = (deviceid: string, token: string) => 'Basic ' + Buffer.from(`${deviceid}:${token}`).toString('base64');

describe('Device API authentication', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const status = (authorization?: string, prefix = '/v2/device') =>
    stack.http('GET', `${prefix}/status`, { headers: authorization === undefined ? {} : { authorization } });

  it('accepts Authorization: Device <ClientID>:<token>', async () => {
    const device = await aDevice(stack);

    const res = await status(`Device ${device.deviceid}:${device.token}`);

    expect(res.status).to.equal(200);
    expect(res.body.deviceid).to.equal(device.deviceid);
  });

  it('accepts Authorization: Basic base64(<ClientID>:<token>)', async () => {
    const device = await aDevice(stack);

    const res = await status(basic(device.deviceid, device.token));

    expect(res.status).to.equal(200);
    expect(res.body.deviceid).to.equal(device.deviceid);
  });

  it('answers 401 MISSING_CREDENTIALS when there is no Authorization header', async () => {
    expectError(await status(), 401, 'MISSING_CREDENTIALS');
  });

  it('answers 401 INVALID_CREDENTIALS with one message for a wrong token and for an unknown device id', async () => {
    const device = await aDevice(stack);

    const wrongToken = await status(`Device ${device.deviceid}:${device.token.replace(/.$/, (c) => (c === 'x' ? 'y' : 'x'))}`);
    const unknownId = await status(`Device ${randomUUID()}:${device.token}`);
    const wrongBasic = await status(basic(device.deviceid, 'not-the-token'));

    expectError(wrongToken, 401, 'INVALID_CREDENTIALS');
    expectError(unknownId, 401, 'INVALID_CREDENTIALS');
    expectError(wrongBasic, 401, 'INVALID_CREDENTIALS');
    expect(unknownId.body.message).to.equal(wrongToken.body.message);
  });

  it('answers 401 INVALID_CREDENTIALS for a header it cannot read', async () => {
    const device = await aDevice(stack);
    for (const header of [`Bearer ${device.token}`, `Device ${device.deviceid}`, `Device :${device.token}`, 'Basic %%%']) {
      expectError(await status(header), 401, 'INVALID_CREDENTIALS');
    }
  });

  it('answers 403 DEVICE_DISABLED for a disabled device and lets it in again once re-enabled', async () => {
    const device = await aDevice(stack);
    await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: false } });

    expectError(await status(device.auth), 403, 'DEVICE_DISABLED');

    await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: true } });
    expect((await status(device.auth)).status).to.equal(200);
  });

  it('answers 403 DEVICE_BANNED for a banned device', async () => {
    const device = await aDevice(stack);
    await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { banned: true } });

    expectError(await status(device.auth), 403, 'DEVICE_BANNED');
  });

  it('refuses the old token as soon as it is rotated and accepts the new one', async () => {
    const device = await aDevice(stack);

    const rotated = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/token`);

    expect(rotated.status).to.equal(200);
    expectError(await status(device.auth), 401, 'INVALID_CREDENTIALS');
    expect((await status(`Device ${device.deviceid}:${rotated.body.token}`)).status).to.equal(200);
  });

  it('serves the same Device API under /device as under /v2/device', async () => {
    const device = await aDevice(stack);
    const client = asDevice(stack, device);

    const statusRes = await status(device.auth, '/device');
    const write = await client('PUT', '/device/shadow/data', { body: { data: { via: 'short path' } } });
    const read = await client('GET', '/v2/device/shadow/data');

    expect(statusRes.status).to.equal(200);
    expect(statusRes.body.deviceid).to.equal(device.deviceid);
    expect(write.status).to.equal(200);
    expect(read.body.data).to.deep.equal({ via: 'short path' });
    expectError(await status(undefined, '/device'), 401, 'MISSING_CREDENTIALS');
  });

  const routes: [string, string][] = [
    ['GET', '/status'],
    ['PUT', '/message/home/lamp'],
    ['PUT', '/message?topic=home/lamp'],
    ['PUT', '/private/home/lamp'],
    ['GET', '/shadow/data'],
    ['PUT', '/shadow/data'],
    ['POST', '/shadow/data'],
    ['PUT', '/shadow/batch'],
    ['POST', '/shadow/batch'],
  ];
  for (const prefix of ['/v2/device', '/device']) {
    it(`refuses every route under ${prefix} without credentials`, async () => {
      for (const [method, path] of routes) {
        const body = method === 'GET' ? undefined : { data: { a: 1 } };
        const res = await stack.http(method, prefix + path, { body });
        expectError(res, 401, 'MISSING_CREDENTIALS');
      }
    });
  }
});

describe('error responses of the Device API', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('carry status equal to the HTTP code, a stable code, a message and the request id', async () => {
    const res = await stack.http('GET', '/v2/device/status');

    expectError(res, 401, 'MISSING_CREDENTIALS');
    expect(res.body).to.have.all.keys('status', 'code', 'message', 'requestId');
  });

  it('echo a sane X-Request-Id in the header and the body', async () => {
    const res = await stack.http('GET', '/v2/device/status', { headers: { 'x-request-id': 'trace-42.a_b' } });

    expect(res.headers.get('x-request-id')).to.equal('trace-42.a_b');
    expect(res.body.requestId).to.equal('trace-42.a_b');
  });

  it('replace an unsafe X-Request-Id with a fresh one', async () => {
    for (const given of ['has spaces', 'x'.repeat(65), '<script>']) {
      const res = await stack.http('GET', '/v2/device/status', { headers: { 'x-request-id': given } });

      const id = res.headers.get('x-request-id');
      expect(id).to.be.a('string').and.not.equal(given);
      expect(id).to.match(/^[A-Za-z0-9._-]{1,64}$/);
      expect(res.body.requestId).to.equal(id);
    }
  });

  it('give every request its own id when none is sent', async () => {
    const device = await aDevice(stack);
    const first = await asDevice(stack, device)('GET', '/v2/device/status');
    const second = await asDevice(stack, device)('GET', '/v2/device/status');

    expect(first.headers.get('x-request-id')).to.be.a('string').and.not.equal(second.headers.get('x-request-id'));
  });
});
