import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice } from '../../helpers/devices';
import { expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

const SCHEMA = {
  additionalProperties: false,
  properties: {
    tempF: { type: 'number', autofill: true, operation: { transform: { expression: '($.tempC * 1.8) + 32', dp: 2 } } },
    tempC: { type: 'number' },
    humid: { type: 'number', minimum: 0, maximum: 100 },
    place: { type: 'string', store: false },
  },
};

describe('admin API: schemas of devices and groups', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('stores a device schema with PUT, reads it back with GET and removes it with DELETE', async () => {
    const device = await aDevice(stack);
    const path = `/v2/admin/devices/${device.deviceid}/schema`;

    expectError(await stack.admin('GET', path), 404, 'SCHEMA_NOT_FOUND');
    const put = await stack.admin('PUT', path, { body: SCHEMA });
    const got = await stack.admin('GET', path);
    const removed = await stack.admin('DELETE', path);

    expect(put.status, put.text).to.equal(200);
    expect(put.body).to.deep.equal(SCHEMA);
    expect(got.body).to.deep.equal(SCHEMA);
    expect(removed.status).to.equal(204);
    expectError(await stack.admin('GET', path), 404, 'SCHEMA_NOT_FOUND');
    expectError(await stack.admin('DELETE', path), 404, 'SCHEMA_NOT_FOUND');
  });

  it('stores a group default the same way', async () => {
    const path = `/v2/admin/projects/p-${randomUUID().slice(0, 8)}/groups/sensors/schema`;

    expect((await stack.admin('PUT', path, { body: SCHEMA })).status).to.equal(200);
    expect((await stack.admin('GET', path)).body).to.deep.equal(SCHEMA);
    expect((await stack.admin('DELETE', path)).status).to.equal(204);
    expectError(await stack.admin('GET', path), 404, 'SCHEMA_NOT_FOUND');
  });

  it('answers 404 DEVICE_NOT_FOUND for an unknown device, and drops the schema with its device', async () => {
    const device = await aDevice(stack);
    const path = `/v2/admin/devices/${device.deviceid}/schema`;
    await stack.admin('PUT', path, { body: SCHEMA });

    await stack.admin('DELETE', `/v2/admin/devices/${device.deviceid}`);

    expectError(await stack.admin('GET', path), 404, 'DEVICE_NOT_FOUND');
    expectError(await stack.admin('PUT', `/v2/admin/devices/${randomUUID()}/schema`, { body: SCHEMA }), 404, 'DEVICE_NOT_FOUND');
  });

  describe('refuses bad schemas with 4xx, naming the problem', () => {
    const cases: [string, unknown, string, RegExp][] = [
      ['not JSON', '{"properties":', 'INVALID_JSON', /not valid JSON/],
      ['an array', '[]', 'INVALID_BODY', /expected a JSON object/],
      ['no properties', {}, 'INVALID_BODY', /properties: required/],
      ['an unknown member', { properties: {}, additionalproperties: false }, 'INVALID_BODY', /unknown member "additionalproperties"/],
      ['a field name NETPIE cannot store', { properties: { 'temp-c': { type: 'number' } } }, 'INVALID_BODY', /properties\.temp-c/],
      ['an expression with a syntax error', { properties: { f: { operation: { transform: { expression: '($.c * 1.8' } } } } }, 'INVALID_BODY',
        /properties\.f\.operation\.transform\.expression: expected "\)"/],
      ['an expression with an unknown function', { properties: { f: { operation: { transform: { expression: 'exec($.c)' } } } } }, 'INVALID_BODY',
        /unknown function exec\(\)/],
      ['autofill without an expression', { properties: { f: { type: 'number', autofill: true } } }, 'INVALID_BODY', /autofill needs/],
    ];
    for (const [what, body, code, message] of cases) {
      it(`${what}: 400 ${code}`, async () => {
        const device = await aDevice(stack);
        const res = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, { body });
        expectError(res, 400, code);
        expect(res.body.message).to.match(message);
        expectError(await stack.admin('GET', `/v2/admin/devices/${device.deviceid}/schema`), 404, 'SCHEMA_NOT_FOUND');
      });
    }

    it('a body over 256 KiB: 413 PAYLOAD_TOO_LARGE', async () => {
      const device = await aDevice(stack);
      const res = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, { body: { properties: {}, description: 'x'.repeat(300 * 1024) } });
      expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('a bad project id in the path: 400 INVALID_QUERY', async () => {
      expectError(await stack.admin('PUT', '/v2/admin/projects/%20bad/groups/g/schema', { body: SCHEMA }), 400, 'INVALID_QUERY');
    });

    it('no admin token: 401', async () => {
      expectError(await stack.http('GET', `/v2/admin/projects/p/groups/g/schema`), 401, 'MISSING_CREDENTIALS');
    });
  });
});
