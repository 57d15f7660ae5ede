import { expect } from 'chai';
import { aDevice } from '../../helpers/devices';
import { HttpClient } from '../../helpers/http';
import { asDevice, expectError } from '../../helpers/rest-device';
import { startStack, Stack } from '../../helpers/stack';

/** Sends raw JSON text, so escapes such as \ud800 reach the service exactly as written. */
const rawJson = (client: HttpClient, method: string, path: string, text: string) =>
  client(method, path, { body: text, contentType: 'application/json' });

describe('unusual but valid data in shadows', () => {
  let stack: Stack;
  let client: HttpClient;
  before(async () => {
    stack = await startStack();
  });
  beforeEach(async () => {
    client = asDevice(stack, await aDevice(stack));
  });
  after(() => stack.stop());

  it('keeps emoji, right-to-left text, NUL and other escapes in keys and values exactly', async () => {
    const text = String.raw`{"data":{"😀":"🚀 ok","שלום":"مرحبا","a\u0000b":"c\u0000d","\u202eevil":"\u200f","tab\tkey":"line\nbreak"}}`;
    const expected = JSON.parse(text).data;

    const write = await rawJson(client, 'PUT', '/v2/device/shadow/data', text);
    const read = await client('GET', '/v2/device/shadow/data');

    expect(write.status, write.text).to.equal(200);
    expect(read.body.data).to.deep.equal(expected);
    expect(Object.keys(read.body.data)).to.include('a\u0000b');
  });

  it('keeps a surrogate pair written as escapes as the one character it is', async () => {
    const write = await rawJson(client, 'PUT', '/v2/device/shadow/data', String.raw`{"data":{"e":"\ud83d\ude00"}}`);

    expect(write.status).to.equal(200);
    expect((await client('GET', '/v2/device/shadow/data')).body.data).to.deep.equal({ e: '😀' });
  });

  for (const [what, text] of [
    ['a lone high surrogate in a value', String.raw`{"data":{"a":"\ud800"}}`],
    ['a lone low surrogate in a value', String.raw`{"data":{"a":"x\udfffy"}}`],
    ['a lone surrogate in a key', String.raw`{"data":{"\ud800":1}}`],
    ['a lone surrogate in a nested array', String.raw`{"data":{"a":[{"b":["\udbff"]}]}}`],
  ]) {
    it(`answers 400 INVALID_BODY for ${what} and stores nothing`, async () => {
      const res = await rawJson(client, 'PUT', '/v2/device/shadow/data', text);

      expectError(res, 400, 'INVALID_BODY');
      expect((await client('GET', '/v2/device/shadow/data')).body.rev).to.equal(0);
    });
  }

  it('answers 400 INVALID_BODY for a number JSON cannot hold (1e400)', async () => {
    expectError(await rawJson(client, 'PUT', '/v2/device/shadow/data', '{"data":{"a":1e400}}'), 400, 'INVALID_BODY');
  });

  it('answers 400 INVALID_BODY for 10000 levels of [[[...]]] inside data and stores nothing', async () => {
    const text = `{"data":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;

    const res = await rawJson(client, 'PUT', '/v2/device/shadow/data', text);

    expectError(res, 400, 'INVALID_BODY');
    expect((await client('GET', '/v2/device/shadow/data')).body.rev).to.equal(0);
  });

  describe('a member named __proto__', () => {
    it('is stored and read back as plain data', async () => {
      const write = await rawJson(client, 'PUT', '/v2/device/shadow/data', '{"data":{"__proto__":{"x":1},"y":2}}');
      const read = await client('GET', '/v2/device/shadow/data');

      expect(write.status, write.text).to.equal(200);
      expect(read.text).to.include('"__proto__":{"x":1}');
      expect(Object.keys(read.body.data)).to.have.members(['__proto__', 'y']);
      expect(Object.getOwnPropertyDescriptor(read.body.data, '__proto__')?.value).to.deep.equal({ x: 1 });
    });

    it('merges like any other member, nested ones too', async () => {
      await rawJson(client, 'PUT', '/v2/device/shadow/data', '{"data":{"__proto__":{"x":1},"o":{"__proto__":{"p":1}}}}');

      await rawJson(client, 'PUT', '/v2/device/shadow/data', '{"data":{"__proto__":{"z":3},"o":{"__proto__":{"q":2}}}}');

      const read = await client('GET', '/v2/device/shadow/data');
      expect(read.text).to.include('"__proto__":{"x":1,"z":3}');
      expect(read.text).to.include('"o":{"__proto__":{"p":1,"q":2}}');
    });

    it('is deleted by null like any other member', async () => {
      await rawJson(client, 'PUT', '/v2/device/shadow/data', '{"data":{"__proto__":{"x":1},"keep":1}}');

      await rawJson(client, 'PUT', '/v2/device/shadow/data', '{"data":{"__proto__":null}}');

      const read = await client('GET', '/v2/device/shadow/data');
      expect(Object.keys(read.body.data)).to.deep.equal(['keep']);
    });

    it('in a batch item is stored as plain data', async () => {
      const res = await rawJson(client, 'PUT', '/v2/device/shadow/batch', '{"batch":[{"ts":0,"data":{"__proto__":{"b":1}}}]}');

      expect(res.status, res.text).to.equal(200);
      expect((await client('GET', '/v2/device/shadow/data')).text).to.include('"__proto__":{"b":1}');
    });

    it('pollutes nothing: not Object.prototype, not the shadows of other devices', async () => {
      await rawJson(client, 'PUT', '/v2/device/shadow/data', '{"data":{"__proto__":{"polluted":"yes"}}}');
      await rawJson(client, 'POST', '/v2/device/shadow/data', '{"data":{"constructor":{"prototype":{"polluted":"yes"}}}}');
      const other = asDevice(stack, await aDevice(stack));

      const fresh = await other('GET', '/v2/device/shadow/data');
      const merged = await other('PUT', '/v2/device/shadow/data', { body: { data: { a: 1 } } });

      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      expect(fresh.body.data).to.deep.equal({});
      expect(merged.body.data).to.deep.equal({ a: 1 });
      expect(merged.text).to.not.include('polluted');
    });
  });
});
