import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

describe('routes the REST API does not have', () => {
  let stack: Stack;
  let device: TestDevice;
  before(async () => {
    stack = await startStack();
    device = await aDevice(stack);
  });
  after(() => stack.stop());

  for (const [method, path] of [
    ['GET', '/v2'],
    ['GET', '/nothing/here'],
    ['GET', '/v2/device/nothing'],
    ['GET', '/device/shadow'],
    ['PUT', '/v2/device/shadow/data/extra'],
    ['GET', '/v3/device/status'],
    ['POST', '/v2/admin/nothing'],
    // Paths are case-sensitive: the Device API is spelled in lower case only.
    ['GET', '/V2/Device/Status'],
    ['PUT', '/v2/device/MESSAGE/home'],
    ['GET', '/v2/device/Shadow/data'],
    ['GET', '/v2/device/status//'],
  ]) {
    it(`answers ${method} ${path} with 404 ROUTE_NOT_FOUND`, async () => {
      expectError(await asDevice(stack, device)(method, path), 404, 'ROUTE_NOT_FOUND');
      expectError(await stack.admin(method, path), 404, 'ROUTE_NOT_FOUND');
    });
  }

  for (const [method, path] of [
    ['POST', '/'],
    ['DELETE', '/v2/device/shadow/data'],
    ['PATCH', '/v2/device/shadow/data'],
    ['GET', '/v2/device/shadow/batch'],
    ['POST', '/v2/device/status'],
    ['GET', '/v2/device/message/home/lamp'],
    ['POST', '/device/private/home/lamp'],
    ['GET', '/v2/admin/tokens'],
    ['PUT', '/v2/admin/devices'],
    ['POST', '/v2/admin/devices/{id}'],
    ['GET', '/v2/admin/devices/{id}/token'],
  ]) {
    it(`answers ${method} ${path} with 405 METHOD_NOT_ALLOWED`, async () => {
      const url = path.replace('{id}', device.deviceid);
      const client = url.startsWith('/v2/admin') ? stack.admin : asDevice(stack, device);

      expectError(await client(method, url), 405, 'METHOD_NOT_ALLOWED');
    });
  }

  it('answers OPTIONS with the methods of the path, and HEAD of the status like GET without a body', async () => {
    const call = asDevice(stack, device);
    const options = await call('OPTIONS', '/v2/device/status');
    expect(options.status).to.equal(200);
    expect(options.headers.get('allow')).to.equal('HEAD, GET');
    expect((await call('OPTIONS', '/device/message/home')).headers.get('allow')).to.equal('PUT');

    const head = await call('HEAD', '/v2/device/status');
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-type')).to.match(/^application\/json/);
    expect(Number(head.headers.get('content-length'))).to.be.greaterThan(0);
    expect(head.body).to.satisfy((body: unknown) => body === undefined || body === '' || body === null);
  });
});
