import { expect } from 'chai';
import { aDevice } from '../../helpers/devices';
import { rawHttp } from '../../helpers/netpie-clients';
import { startStack, Stack } from '../../helpers/stack';

/**
 * Requests written as NETPIE's own documentation writes them, for callers that copy the docs rather than use a library:
 * netpiex/build-docs `_source/device-api.rst` §7, "PUT /device/push" with `Authorization: Device <ClientID>:<Token>`
 * and the JSON body `{"title","subtitle"(optional),"body"}`, answered with a Response Object whose `message` the
 * caller reads. The example shows no Content-Type header, so the body is sent both with `application/json` and with
 * none. The same body is what the vendor's Node-RED command node publishes on `@push` (chavee/node-red-contrib-netpie
 * `command.js`).
 */

describe('clients: NETPIE documentation examples (netpiex/build-docs)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const push = JSON.stringify({ title: 'Living room', subtitle: 'Abnormal condition detected', body: 'Temperature exceeded 50°C!' });

  for (const [what, contentType] of [
    ['application/json', 'application/json'],
    ['no content type, as the example', undefined],
  ] as const) {
    it(`NETPIE docs REST push: PUT /device/push with {"title","subtitle","body"} and ${what} is answered 200 JSON with a message`, async () => {
      const device = await aDevice(stack);
      const headers: [string, string][] = [
        ['Host', new URL(stack.baseUrl).host],
        ['Authorization', `Device ${device.deviceid}:${device.token}`],
      ];
      if (contentType) headers.push(['Content-Type', contentType]);
      headers.push(['Content-Length', String(Buffer.byteLength(push))], ['Connection', 'close']);

      const res = await rawHttp(stack.baseUrl, { method: 'PUT', target: '/device/push', headers, body: push });

      expect(res.status, res.text).to.equal(200);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      expect(res.json.message).to.be.a('string').that.is.not.empty;
    });
  }

  // device-api.rst §7: subtitle is optional (the KidBright AI plugin's push sends title and body only).
  it('NETPIE docs REST push: PUT /v2/device/push without the optional subtitle is answered 200', async () => {
    const device = await aDevice(stack);
    const body = JSON.stringify({ title: 'Door', body: 'Front door opened' });

    const res = await rawHttp(stack.baseUrl, {
      method: 'PUT',
      target: '/v2/device/push',
      headers: [
        ['Host', new URL(stack.baseUrl).host],
        ['Authorization', `Device ${device.deviceid}:${device.token}`],
        ['Content-Type', 'application/json'],
        ['Content-Length', String(Buffer.byteLength(body))],
        ['Connection', 'close'],
      ],
      body,
    });

    expect(res.status, res.text).to.equal(200);
    expect(res.json.message).to.be.a('string');
  });
});
