import { expect } from 'chai';
import { coapAs, CoapClient, coapClient, expectCoapError } from '../../helpers/coap';
import { aDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

describe('CoAP requests the service refuses', () => {
  let stack: Stack;
  let coap: CoapClient;
  before(async () => {
    stack = await startStack();
    coap = coapAs(stack.coapUrl, await aDevice(stack));
  });
  after(() => stack.stop());

  const shadowRev = async () => (await coap('GET', '/shadow/data')).body.rev;

  describe('payloads', () => {
    for (const path of ['/shadow/data', '/shadow/batch']) {
      it(`answers 4.00 INVALID_JSON with a JSON error body for a malformed ${path} payload`, async () => {
        for (const payload of ['{data:', 'not json at all', '{"data":{"a":1}}}', '', '   ']) {
          expectCoapError(await coap('PUT', path, { payload }), '4.00', 400, 'INVALID_JSON');
        }
        expect(await shadowRev()).to.equal(0);
      });
    }

    it('answers 4.00 INVALID_JSON for a payload that is not UTF-8', async () => {
      const res = await coap('PUT', '/shadow/data', { payload: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) });

      expectCoapError(res, '4.00', 400, 'INVALID_JSON');
    });

    it('answers 4.00 INVALID_BODY, naming the problem, for JSON of the wrong shape', async () => {
      const shapes = ['42', '[1,2]', '{}', '{data:5}', '{data:[1]}', '{data:{a:1},extra:true}', '{data:{a:Infinity}}'];
      for (const payload of shapes) {
        const res = await coap('PUT', '/shadow/data', { payload });
        expectCoapError(res, '4.00', 400, 'INVALID_BODY');
      }
      const unknown = await coap('PUT', '/shadow/data', { payload: '{data:{a:1},extra:true}' });
      expect(unknown.body.message).to.contain('extra');
      expect(await shadowRev()).to.equal(0);
    });

    it('answers 4.00 for a bad timestamp and for a batch that is not a list', async () => {
      const future = Date.now() + 3 * 24 * 3600 * 1000;

      const lateWrite = await coap('PUT', '/shadow/data', { payload: `{data:{a:1},timestamp:${future}}` });
      const notAList = await coap('PUT', '/shadow/batch', { payload: '{batch:{data:{a:1}}}' });

      expectCoapError(lateWrite, '4.00', 400, 'INVALID_TIMESTAMP');
      expectCoapError(notAList, '4.00', 400, 'INVALID_BODY');
    });

    it('answers 4.15 UNSUPPORTED_MEDIA_TYPE for a Content-Format that is not JSON or text', async () => {
      for (const contentFormat of ['application/cbor', 'application/octet-stream', 'application/xml', 9999]) {
        const res = await coap('PUT', '/shadow/data', { payload: '{data:{a:1}}', contentFormat });
        expectCoapError(res, '4.15', 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
    });

    it('answers 4.13 PAYLOAD_TOO_LARGE with Size1 for a shadow write over 256 KiB', async () => {
      const payload = JSON.stringify({ data: { text: 'x'.repeat(256 * 1024) } });

      const res = await coap('PUT', '/shadow/data', { payload });

      expectCoapError(res, '4.13', 413, 'PAYLOAD_TOO_LARGE');
      expect(res.headers.Size1).to.equal(256 * 1024);
    });

    it('stops a batch upload over 1 MiB at the block that passes the limit', async () => {
      const payload = Buffer.alloc(1024 * 1024 + 1024, 0x20);

      const res = await coap('PUT', '/shadow/batch', { payload });

      expectCoapError(res, '4.13', 413, 'PAYLOAD_TOO_LARGE');
      expect(res.headers.Size1).to.equal(1024 * 1024);
    });
  });

  describe('paths and methods', () => {
    it('answers 4.04 ROUTE_NOT_FOUND for unknown paths, with or without credentials', async () => {
      const anonymous = coapClient(stack.coapUrl);
      for (const path of ['/', '/shadow', '/shadow/data/extra', '/v2/device/shadow/data', '/pushes', '/status']) {
        expectCoapError(await coap('GET', path), '4.04', 404, 'ROUTE_NOT_FOUND');
        expectCoapError(await anonymous('PUT', path, { payload: 'x' }), '4.04', 404, 'ROUTE_NOT_FOUND');
      }
    });

    it('answers 4.05 METHOD_NOT_ALLOWED for a known path and a method it does not take', async () => {
      const calls: [string, string][] = [
        ['DELETE', '/shadow/data'],
        ['GET', '/shadow/batch'],
        ['DELETE', '/shadow/batch'],
        ['GET', '/message/a/b'],
        ['POST', '/message/a/b'],
      ];
      for (const [method, path] of calls) {
        expectCoapError(await coap(method, path), '4.05', 405, 'METHOD_NOT_ALLOWED');
      }
    });

    it('answers 4.05 for FETCH and PATCH, which node-coap names but the API does not use', async () => {
      for (const method of ['FETCH', 'PATCH']) {
        const res = await coap(method, '/shadow/data', { payload: '{data:{a:1}}', contentFormat: 'application/json' });
        expectCoapError(res, '4.05', 405, 'METHOD_NOT_ALLOWED');
      }
    });
  });
});
