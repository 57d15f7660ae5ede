import { expect } from 'chai';
import { aDevice } from '../../helpers/devices';
import { HttpClient } from '../../helpers/http';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** `levels` objects nested in one another, the innermost holding `leaf`; `{"a":{"b":1}}` is 2 levels (limits.ts). */
function nested(levels: number, leaf: unknown): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf };
  for (let i = 1; i < levels; i++) value = { [`l${levels - i}`]: value };
  return value;
}

describe('what PUT and POST /v2/device/shadow/data accept', () => {
  let stack: Stack;
  let client: HttpClient;
  before(async () => {
    stack = await startStack();
  });
  beforeEach(async () => {
    client = asDevice(stack, await aDevice(stack));
    await client('POST', '/v2/device/shadow/data', { body: { data: { before: true } } });
  });
  after(() => stack.stop());

  /** The shadow is just as beforeEach left it. */
  async function expectUntouched(): Promise<void> {
    const res = await client('GET', '/v2/device/shadow/data');
    expect(res.body.rev).to.equal(1);
    expect(res.body.data).to.deep.equal({ before: true });
  }

  it('answers 400 INVALID_BODY naming an unknown member of the body', async () => {
    const res = await client('PUT', '/v2/device/shadow/data', { body: { data: {}, foo: 1 } });

    expectError(res, 400, 'INVALID_BODY');
    expect(res.body.message).to.include('foo');
    await expectUntouched();
  });

  for (const [what, body] of [
    ['a string', { data: 'on' }],
    ['an array', { data: [1, 2] }],
    ['null', { data: null }],
    ['a number', { data: 1 }],
    ['missing', { timestamp: 0 }],
  ] as const) {
    it(`answers 400 INVALID_BODY when data is ${what}`, async () => {
      for (const method of ['PUT', 'POST']) {
        const res = await client(method, '/v2/device/shadow/data', { body });
        expectError(res, 400, 'INVALID_BODY');
        expect(res.body.message).to.include('data');
      }
      await expectUntouched();
    });
  }

  it('answers 400 INVALID_BODY when merged is not a boolean', async () => {
    expectError(await client('PUT', '/v2/device/shadow/data', { body: { data: {}, merged: 'yes' } }), 400, 'INVALID_BODY');
  });

  it('accepts data nested exactly 16 levels deep', async () => {
    const data = nested(16, 1);

    const res = await client('POST', '/v2/device/shadow/data', { body: { data } });

    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.deep.equal(data);
  });

  // limits.ts and the error table name SHADOW_TOO_DEEP for this, but the codec reports it as an INVALID_BODY.
  for (const [what, leaf] of [['objects', 1], ['arrays', [[1]]]] as const) {
    it(`answers 400 INVALID_BODY about nesting for data 17 levels deep (${what}) and applies nothing`, async () => {
      const res = await client('PUT', '/v2/device/shadow/data', { body: { data: nested(what === 'objects' ? 17 : 15, leaf) } });

      expectError(res, 400, 'INVALID_BODY');
      expect(res.body.message).to.match(/nesting deeper than 16/);
      await expectUntouched();
    });
  }

  it('answers 413 SHADOW_TOO_LARGE for a write whose shadow would pass 64 KiB, and applies nothing', async () => {
    const res = await client('PUT', '/v2/device/shadow/data', { body: { data: { big: 'x'.repeat(65 * 1024) } } });

    expectError(res, 413, 'SHADOW_TOO_LARGE');
    await expectUntouched();
  });

  it('answers 413 SHADOW_TOO_LARGE when a merge grows a shadow past 64 KiB, and applies nothing', async () => {
    const first = await client('PUT', '/v2/device/shadow/data', { body: { data: { part1: 'x'.repeat(40 * 1024) } } });
    expect(first.status).to.equal(200);

    const res = await client('PUT', '/v2/device/shadow/data', { body: { data: { part2: 'y'.repeat(30 * 1024) } } });

    expectError(res, 413, 'SHADOW_TOO_LARGE');
    const read = await client('GET', '/v2/device/shadow/data');
    expect(read.body.rev).to.equal(2);
    expect(Object.keys(read.body.data)).to.deep.equal(['before', 'part1']);
  });

  it('accepts an overwrite that shrinks a large shadow', async () => {
    await client('PUT', '/v2/device/shadow/data', { body: { data: { part1: 'x'.repeat(60 * 1024) } } });

    const res = await client('POST', '/v2/device/shadow/data', { body: { data: { part2: 'y'.repeat(30 * 1024) } } });

    expect(res.status).to.equal(200);
    expect(Object.keys(res.body.data)).to.deep.equal(['part2']);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 256 KiB, and applies nothing', async () => {
    const body = JSON.stringify({ data: { a: 1 } }) + ' '.repeat(256 * 1024);

    const res = await client('PUT', '/v2/device/shadow/data', { body, contentType: 'application/json' });

    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    await expectUntouched();
  });
});
