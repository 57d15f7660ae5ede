import { expect } from 'chai';
import { aDevice } from '../../helpers/devices';
import { HttpClient } from '../../helpers/http';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

const item = (i: number) => ({ data: { [`k${i}`]: i }, ts: -1_000 + i });

describe('refused shadow batches (PUT/POST /v2/device/shadow/batch)', () => {
  let stack: Stack;
  let client: HttpClient;
  let initial: { data: unknown; rev: number; timestamp: number };
  before(async () => {
    stack = await startStack();
  });
  beforeEach(async () => {
    client = asDevice(stack, await aDevice(stack));
    const res = await client('PUT', '/v2/device/shadow/data', { body: { data: { before: true }, timestamp: -60_000 } });
    initial = { data: res.body.data, rev: res.body.rev, timestamp: res.body.timestamp };
  });
  after(() => stack.stop());

  /** Nothing of the refused batch was saved: data, rev and timestamp are as beforeEach left them. */
  async function expectNothingSaved(): Promise<void> {
    const res = await client('GET', '/v2/device/shadow/data');
    expect({ data: res.body.data, rev: res.body.rev, timestamp: res.body.timestamp }).to.deep.equal(initial);
  }

  for (const method of ['PUT', 'POST']) {
    it(`${method} answers 101 items with the NETPIE batch-size body and saves nothing`, async () => {
      const res = await client(method, '/v2/device/shadow/batch', {
        body: { ackid: 'a-101', batch: Array.from({ length: 101 }, (_, i) => item(i)) },
      });

      expectError(res, 400, 'BATCH_TOO_LARGE');
      expect(res.body).to.deep.include({
        status: 400,
        code: 'BATCH_TOO_LARGE',
        errcode: 429,
        message: 'batch size exceeds 100',
        inputsize: 101,
        ackid: 'a-101',
      });
      await expectNothingSaved();
    });
  }

  const badItems: [string, unknown, RegExp][] = [
    ['data is a string', { data: 'on', ts: 0 }, /data/],
    ['data is missing', { ts: 0 }, /data/],
    ['ts is missing', { data: { a: 1 } }, /ts/],
    ['both ts and timestamp are given', { data: { a: 1 }, ts: 0, timestamp: 0 }, /ts/],
    ['ts is not an integer', { data: { a: 1 }, ts: '0' }, /ts/],
    ['ts is more than 24 hours ahead', { data: { a: 1 }, ts: 25 * 3_600_000 }, /ts/],
    ['it has an unknown member', { data: { a: 1 }, ts: 0, extra: 1 }, /extra/],
    ['it is not an object', 'item', /./],
    ['its data is nested 17 levels deep', { data: JSON.parse('{"a":'.repeat(17) + '1' + '}'.repeat(17)), ts: 0 }, /nesting/],
  ];
  for (const [what, bad, mentions] of badItems) {
    it(`answers 400 INVALID_BATCH_ITEM naming the index when ${what}, and saves nothing`, async () => {
      const batch = [item(0), item(1), item(2), bad, item(4)];

      const res = await client('PUT', '/v2/device/shadow/batch', { body: { batch } });

      expectError(res, 400, 'INVALID_BATCH_ITEM');
      expect(res.body.message).to.include('3').and.match(mentions);
      await expectNothingSaved();
    });
  }

  it('answers 400 for an empty batch', async () => {
    const res = await client('PUT', '/v2/device/shadow/batch', { body: { batch: [] } });

    expect(res.status).to.equal(400);
    expect(res.body).to.include({ status: 400 });
    expect(res.body.code).to.be.a('string');
    await expectNothingSaved();
  });

  for (const [what, body, mentions] of [
    ['batch is not an array', { batch: { data: { a: 1 }, ts: 0 } }, 'batch'],
    ['batch is missing', { data: { a: 1 } }, 'batch'],
    ['the envelope has an unknown member', { batch: [item(0)], foo: 1 }, 'foo'],
    ['merged is not a boolean', { batch: [item(0)], merged: 1 }, 'merged'],
    ['ackid is an object', { batch: [item(0)], ackid: { id: 1 } }, 'ackid'],
  ] as const) {
    it(`answers 400 INVALID_BODY when ${what}, and saves nothing`, async () => {
      const res = await client('PUT', '/v2/device/shadow/batch', { body });

      expectError(res, 400, 'INVALID_BODY');
      expect(res.body.message).to.include(mentions);
      await expectNothingSaved();
    });
  }

  it('answers 413 SHADOW_TOO_LARGE when the items together would pass 64 KiB, and saves nothing', async () => {
    const items = [0, 1, 2].map((i) => ({ data: { [`part${i}`]: 'x'.repeat(30 * 1024) }, ts: -1_000 + i }));

    const res = await client('PUT', '/v2/device/shadow/batch', { body: { batch: items } });

    expectError(res, 413, 'SHADOW_TOO_LARGE');
    await expectNothingSaved();
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 1 MiB', async () => {
    const body = JSON.stringify({ batch: [item(0)] }) + ' '.repeat(1024 * 1024);

    const res = await client('PUT', '/v2/device/shadow/batch', { body, contentType: 'application/json' });

    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    await expectNothingSaved();
  });
});
