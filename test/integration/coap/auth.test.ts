import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { authOf, coapClient, CoapClient, expectCoapError } from '../../helpers/coap';
import { aDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

describe('CoAP ?auth=<ClientID>:<token>', () => {
  let stack: Stack;
  let coap: CoapClient;
  before(async () => {
    stack = await startStack();
    coap = coapClient(stack.coapUrl);
  });
  after(() => stack.stop());

  it('lets a device in with its ClientID and token in the auth query argument', async () => {
    const device = await aDevice(stack);

    const res = await coap('GET', '/shadow/data', { query: [authOf(device)] });

    expect(res.code, res.text).to.equal('2.05');
    expect(res.body.deviceid).to.equal(device.deviceid);
  });

  it('answers 4.01 MISSING_CREDENTIALS on every path when auth is absent', async () => {
    const calls: [string, string, unknown][] = [
      ['GET', '/shadow/data', undefined],
      ['PUT', '/shadow/data', '{data:{a:1}}'],
      ['POST', '/shadow/data', '{data:{a:1}}'],
      ['PUT', '/shadow/batch', '{batch:[{data:{a:1},ts:0}]}'],
      ['POST', '/shadow/batch', '{batch:[{data:{a:1},ts:0}]}'],
      ['PUT', '/message/home/lamp', 'ON'],
    ];
    for (const [method, path, payload] of calls) {
      expectCoapError(await coap(method, path, { payload }), '4.01', 401, 'MISSING_CREDENTIALS');
    }
  });

  it('answers 4.01 INVALID_CREDENTIALS with one message for a wrong token and an unknown ClientID', async () => {
    const device = await aDevice(stack);

    const wrongToken = await coap('GET', '/shadow/data', { query: [`auth=${device.deviceid}:not-the-token`] });
    const unknownId = await coap('GET', '/shadow/data', { query: [`auth=${randomUUID()}:${device.token}`] });

    expectCoapError(wrongToken, '4.01', 401, 'INVALID_CREDENTIALS');
    expectCoapError(unknownId, '4.01', 401, 'INVALID_CREDENTIALS');
    expect(unknownId.body.message).to.equal(wrongToken.body.message);
  });

  it('answers 4.01 INVALID_CREDENTIALS for an auth argument it cannot read', async () => {
    const device = await aDevice(stack);
    for (const auth of ['auth', 'auth=', `auth=${device.deviceid}`, `auth=:${device.token}`]) {
      expectCoapError(await coap('GET', '/shadow/data', { query: [auth] }), '4.01', 401, 'INVALID_CREDENTIALS');
    }
  });

  it('answers 4.00 INVALID_QUERY when auth is given twice', async () => {
    const device = await aDevice(stack);

    const res = await coap('GET', '/shadow/data', { query: [authOf(device), authOf(device)] });

    expectCoapError(res, '4.00', 400, 'INVALID_QUERY');
  });

  it('answers 4.03 DEVICE_DISABLED for a disabled device and lets it in again once re-enabled', async () => {
    const device = await aDevice(stack);
    await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: false } });

    expectCoapError(await coap('GET', '/shadow/data', { query: [authOf(device)] }), '4.03', 403, 'DEVICE_DISABLED');

    await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: true } });
    expect((await coap('GET', '/shadow/data', { query: [authOf(device)] })).code).to.equal('2.05');
  });

  it('answers 4.03 DEVICE_BANNED for a banned device, and publishes nothing for it', async () => {
    const device = await aDevice(stack);
    await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { banned: true } });

    const read = await coap('GET', '/shadow/data', { query: [authOf(device)] });
    const write = await coap('PUT', '/shadow/data', { query: [authOf(device)], payload: '{data:{a:1}}' });

    expectCoapError(read, '4.03', 403, 'DEVICE_BANNED');
    expectCoapError(write, '4.03', 403, 'DEVICE_BANNED');
  });

  it('refuses the old token as soon as it is rotated', async () => {
    const device = await aDevice(stack);

    const rotated = await stack.admin('POST', `/v2/admin/devices/${device.deviceid}/token`);

    expectCoapError(await coap('GET', '/shadow/data', { query: [authOf(device)] }), '4.01', 401, 'INVALID_CREDENTIALS');
    const fresh = await coap('GET', '/shadow/data', { query: [`auth=${device.deviceid}:${rotated.body.token}`] });
    expect(fresh.code).to.equal('2.05');
  });

  it('counts a CoAP call for the liveness TTL, as a REST call does', async () => {
    const device = await aDevice(stack, { livenessttl: 60 });
    const statusOf = async () => (await stack.admin('GET', `/v2/admin/devices/${device.deviceid}`)).body.status;
    expect(await statusOf()).to.equal(0);

    await coap('GET', '/shadow/data', { query: [authOf(device)] });

    expect(await statusOf()).to.equal(1);
  });

  it('does not count a refused call', async () => {
    const device = await aDevice(stack, { livenessttl: 60 });

    await coap('GET', '/shadow/data', { query: [`auth=${device.deviceid}:wrong`] });

    expect((await stack.admin('GET', `/v2/admin/devices/${device.deviceid}`)).body.status).to.equal(0);
  });
});
