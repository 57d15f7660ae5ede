import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { HttpResponse } from '../../helpers/http';
import { asDevice } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

interface BadBody {
  what: string;
  body: string | Buffer;
  contentType?: string;
  /** The status the service must answer; any 4xx when absent. */
  status?: number;
}

const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** Bodies no JSON endpoint may accept; each must get a 4xx with the error body, never a 500. */
const badBodies: BadBody[] = [
  { what: 'malformed JSON', body: '{"data":{"a":1}', status: 400 },
  { what: 'an empty body', body: '', status: 400 },
  { what: 'a body of blanks', body: '  \n\t ', status: 400 },
  { what: 'bytes that are not UTF-8', body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), status: 400 },
  { what: 'a JSON array', body: '[{"data":{}}]', status: 400 },
  { what: 'a JSON string', body: '"data"', status: 400 },
  { what: 'a JSON number', body: '42', status: 400 },
  { what: 'JSON null', body: 'null', status: 400 },
  { what: 'JSON true', body: 'true', status: 400 },
  { what: 'form fields (curl -d), which are not JSON', body: 'data=1', contentType: 'application/x-www-form-urlencoded', status: 400 },
  { what: 'a multipart body', body: '--x\r\n\r\n{}\r\n--x--', contentType: 'multipart/form-data; boundary=x', status: 415 },
  { what: 'an XML body', body: '<data/>', contentType: 'application/xml', status: 415 },
  { what: 'a body of 1 MiB and more', body: Buffer.alloc(1024 * 1024 + 1, 0x20), status: 413 },
  { what: '10000 levels of [[[...]]] as raw text', body: deep(10_000) },
  { what: 'a projectid member 7000 levels deep', body: `{"projectid":${deep(7_000)}}` },
  { what: 'a data member 7000 levels deep', body: `{"data":{"a":${deep(7_000)}}}` },
  { what: 'a top-level __proto__ member', body: '{"__proto__":{"polluted":1}}', status: 400 },
  { what: 'a top-level constructor member', body: '{"constructor":{"prototype":{"polluted":1}}}', status: 400 },
  { what: 'a top-level toString member', body: '{"toString":1}', status: 400 },
];

describe('bad input to the REST API', () => {
  let stack: Stack;
  let device: TestDevice;
  before(async () => {
    stack = await startStack();
    device = await aDevice(stack);
  });
  after(() => stack.stop());

  /** Each endpoint that reads a JSON body, with how to call it. */
  const endpoints: { name: string; call: (body: string | Buffer, contentType?: string) => Promise<HttpResponse> }[] = [
    ['PUT', '/v2/device/shadow/data'],
    ['POST', '/v2/device/shadow/data'],
    ['PUT', '/v2/device/shadow/batch'],
    ['POST', '/device/shadow/batch'],
  ]
    .map(([method, path]) => ({
      name: `${method} ${path}`,
      call: (body: string | Buffer, contentType = 'application/json') => asDevice(stack, device)(method, path, { body, contentType }),
    }))
    .concat(
      [
        ['POST', '/v2/admin/devices'],
        ['PATCH', '/v2/admin/devices/{id}'],
        ['POST', '/v2/admin/tokens'],
      ].map(([method, path]) => ({
        name: `${method} ${path}`,
        call: (body: string | Buffer, contentType = 'application/json') =>
          stack.admin(method, path.replace('{id}', device.deviceid), { body, contentType }),
      })),
    );

  /** The service keeps answering after a bad request, on the Device and on the admin side. */
  async function expectStillServing(): Promise<void> {
    expect((await asDevice(stack, device)('GET', '/v2/device/status')).status).to.equal(200);
    expect((await stack.admin('GET', `/v2/admin/devices/${device.deviceid}`)).status).to.equal(200);
  }

  for (const endpoint of endpoints) {
    describe(endpoint.name, () => {
      for (const bad of badBodies) {
        it(`answers ${bad.status ?? '4xx'} with an error body for ${bad.what}`, async () => {
          const res = await endpoint.call(bad.body, bad.contentType);

          expect(res.status, res.text).to.be.within(400, 499);
          if (bad.status !== undefined) expect(res.status, res.text).to.equal(bad.status);
          expect(res.body).to.be.an('object');
          expect(res.body.status).to.equal(res.status);
          expect(res.body.code).to.be.a('string').that.matches(/^[A-Z_]+$/);
          expect(res.body.message).to.be.a('string').that.is.not.empty;
          await expectStillServing();
        });
      }
    });
  }

  it('leaves Object.prototype alone whatever the bodies above held', () => {
    const probe: Record<string, unknown> = {};
    expect(probe.polluted).to.equal(undefined);
    expect(Object.prototype).to.not.have.property('polluted');
  });
});
