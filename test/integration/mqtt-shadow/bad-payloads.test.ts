import { expect } from 'chai';
import { aDevice, aGroup } from '../../helpers/devices';
import { collect } from '../../helpers/mqtt';
import {
  BATCH,
  BATCH_RESPONSE,
  expectErrorReply,
  GET_RESPONSE,
  pointsOf,
  restShadow,
  shadowSession,
  UPDATE,
  UPDATE_RESPONSE,
  whatAGroupmateSees,
} from '../../helpers/mqtt-shadow';
import { startStack, Stack } from '../../helpers/stack';

/** 256 KiB, the broker's PUBLISH limit. */
const MAX_PAYLOAD = 256 * 1024;

const deep = (levels: number): object => (levels === 0 ? { leaf: 1 } : { n: deep(levels - 1) });

interface Case {
  what: string;
  payload: string | Buffer;
  status: number;
  code: string;
  /** Text the message must contain. */
  says?: string;
}

const updateCases: Case[] = [
  { what: 'malformed JSON', payload: '{"data":{"temp":', status: 400, code: 'INVALID_JSON', says: 'not valid JSON' },
  { what: 'an empty payload', payload: '', status: 400, code: 'INVALID_JSON', says: 'empty' },
  { what: 'invalid UTF-8', payload: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), status: 400, code: 'INVALID_JSON', says: 'UTF-8' },
  { what: 'a JSON array', payload: '[{"data":{}}]', status: 400, code: 'INVALID_BODY' },
  { what: 'a JSON string', payload: '"hello"', status: 400, code: 'INVALID_BODY' },
  { what: 'no "data"', payload: '{"timestamp":0}', status: 400, code: 'INVALID_BODY', says: 'data' },
  { what: '"data" that is not an object', payload: '{"data":[1,2]}', status: 400, code: 'INVALID_BODY', says: 'data' },
  { what: 'an unknown member', payload: '{"data":{"a":1},"merge":true}', status: 400, code: 'INVALID_BODY', says: 'unknown member "merge"' },
  { what: '"merged" that is not a boolean', payload: '{"data":{"a":1},"merged":"yes"}', status: 400, code: 'INVALID_BODY', says: 'merged' },
  { what: 'a fractional timestamp', payload: '{"data":{"a":1},"timestamp":1.5}', status: 400, code: 'INVALID_BODY', says: 'timestamp' },
  { what: 'a timestamp days ahead', payload: JSON.stringify({ data: { a: 1 }, timestamp: Date.now() + 3 * 86400_000 }), status: 400, code: 'INVALID_TIMESTAMP' },
  { what: 'data nested 17 levels deep', payload: JSON.stringify({ data: deep(16) }), status: 400, code: 'INVALID_BODY', says: 'deeper' },
  { what: 'a non-finite number', payload: '{"data":{"a":1e999}}', status: 400, code: 'INVALID_BODY', says: 'out of range' },
  { what: 'a shadow over 64 KiB', payload: JSON.stringify({ data: { big: 'x'.repeat(70 * 1024) } }), status: 413, code: 'SHADOW_TOO_LARGE' },
  {
    what: 'a payload over 256 KiB',
    payload: JSON.stringify({ data: { big: 'x'.repeat(MAX_PAYLOAD) } }),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    says: String(MAX_PAYLOAD),
  },
];

const batchCases: Case[] = [
  { what: 'malformed JSON', payload: '{"batch":[', status: 400, code: 'INVALID_JSON' },
  { what: 'an empty payload', payload: '', status: 400, code: 'INVALID_JSON' },
  { what: 'no "batch"', payload: '{"ackid":1}', status: 400, code: 'INVALID_BODY', says: 'batch' },
  { what: 'an empty batch', payload: '{"batch":[]}', status: 400, code: 'INVALID_BODY', says: 'at least one' },
  { what: '"batch" that is not an array', payload: '{"batch":{"data":{}}}', status: 400, code: 'INVALID_BODY' },
  { what: 'an unknown member', payload: '{"batch":[{"data":{"a":1},"ts":0}],"ackId":3}', status: 400, code: 'INVALID_BODY', says: 'unknown member "ackId"' },
  { what: 'an ackid that is an object', payload: '{"batch":[{"data":{"a":1},"ts":0}],"ackid":{}}', status: 400, code: 'INVALID_BODY', says: 'ackid' },
  { what: 'a payload over 256 KiB', payload: JSON.stringify({ batch: [{ data: { big: 'x'.repeat(MAX_PAYLOAD) }, ts: 0 }] }), status: 413, code: 'PAYLOAD_TOO_LARGE' },
];

/** Batch items that are refused, each at index 1 of a batch whose other items are fine. */
const badItems: [string, unknown, string][] = [
  ['no ts', { data: { a: 1 } }, '"ts" is required'],
  ['both ts and timestamp', { data: { a: 1 }, ts: 0, timestamp: 0 }, 'not both'],
  ['data that is not an object', { data: 5, ts: 0 }, 'data'],
  ['an unknown member', { data: { a: 1 }, ts: 0, value: 2 }, 'unknown member "value"'],
  ['an item that is not an object', 'oops', 'batch item 1'],
];

describe('MQTT shadow requests with bad payloads', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** Sends a bad request, expects its error reply, then checks the connection still serves and nothing changed. */
  async function expectRefused(topic: string, replyTopic: string, c: Pick<Case, 'payload' | 'status' | 'code' | 'says'>) {
    const device = await aDevice(stack);
    const session = await shadowSession(stack, device);
    try {
      const reply = await session.ask(topic, c.payload, replyTopic);

      expectErrorReply(reply, c.status, c.code);
      if (c.says) expect(reply.body.message).to.contain(c.says);
      expect((await session.get()).body).to.include({ deviceid: device.deviceid, rev: 0 });
      expect(session.client.connected).to.equal(true);
      expect(await pointsOf(stack, device, 'a')).to.deep.equal([]);
      return reply;
    } finally {
      await session.end();
    }
  }

  describe('on @shadow/data/update: an error on @private/shadow/data/update/response, the connection stays up', () => {
    for (const c of updateCases) {
      it(`${c.what}: ${c.status} ${c.code}`, () => expectRefused(UPDATE, UPDATE_RESPONSE, c));
    }

    it('lists what is wrong in "errors", like REST', async () => {
      const reply = await expectRefused(UPDATE, UPDATE_RESPONSE, { payload: '{"data":5,"x":1}', status: 400, code: 'INVALID_BODY' });

      expect(reply.body.errors).to.be.an('array').with.length(2);
      expect(reply.body.errors.join('\n')).to.contain('unknown member "x"');
    });
  });

  describe('on @shadow/batch/update: an error on @private/shadow/batch/update/response, the connection stays up', () => {
    for (const c of batchCases) {
      it(`${c.what}: ${c.status} ${c.code}`, () => expectRefused(BATCH, BATCH_RESPONSE, c));
    }

    for (const [what, item, says] of badItems) {
      it(`a batch item with ${what}: 400 INVALID_BATCH_ITEM naming its index, the ackid echoed, nothing saved`, async () => {
        const payload = JSON.stringify({ ackid: 77, batch: [{ data: { a: 1 }, ts: -1000 }, item, { data: { a: 3 }, ts: 0 }] });

        const reply = await expectRefused(BATCH, BATCH_RESPONSE, { payload, status: 400, code: 'INVALID_BATCH_ITEM', says });

        expect(reply.body).to.include({ ackid: 77, index: 1 });
        expect(reply.body.message).to.match(/^batch item 1: /);
        expect(reply.raw.startsWith('{"ackid":77,"status":400,'), reply.raw).to.equal(true);
      });
    }

    it('a batch item with a ts before 1970: 400 INVALID_BATCH_ITEM naming its index in the message, nothing saved', async () => {
      const payload = JSON.stringify({ ackid: 78, batch: [{ data: { a: 1 }, ts: 0 }, { data: { a: 2 }, ts: -1e13 }] });

      const reply = await expectRefused(BATCH, BATCH_RESPONSE, { payload, status: 400, code: 'INVALID_BATCH_ITEM', says: '1970' });

      expect(reply.body).to.include({ ackid: 78 });
      expect(reply.body.message).to.match(/^batch item 1: ts: /);
    });
  });

  it('keeps serving a device that sends 50 bad requests at once, answering each of them in order', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      const bad = (ackid: number) => JSON.stringify({ ackid, batch: [{ data: 'not an object', ts: 0 }] });

      await Promise.all(Array.from({ length: 50 }, (_, i) => session.client.publishAsync(BATCH, bad(i))));
      const replies = (await session.messagesUntilSettled(0)).map((m) => ({ topic: m.topic, ...JSON.parse(m.payload) }));

      expect(replies.map((r) => r.ackid)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
      for (const r of replies) expect(r).to.include({ topic: BATCH_RESPONSE, code: 'INVALID_BATCH_ITEM', index: 0 });
    } finally {
      await session.end();
    }
  });

  it('sends the errors of a device to that device only', async () => {
    const seen = await whatAGroupmateSees(stack, await aGroup(stack, 2), async (session) => {
      await session.ask(UPDATE, 'not json', UPDATE_RESPONSE);
      await session.ask(BATCH, 'not json', BATCH_RESPONSE);
    });

    expect(seen.map((m) => m.topic)).to.deep.equal([GET_RESPONSE]);
  });

  it('acknowledges bad QoS 1 and QoS 2 requests and keeps the shadow as it was', async () => {
    const [device] = await aGroup(stack, 1);
    const session = await shadowSession(stack, device);
    try {
      await session.ask(UPDATE, { data: { a: 1 } }, '@shadow/data/updated');
      const errors = collect(session.client);

      await session.client.publishAsync(UPDATE, '{"data":', { qos: 1 });
      await session.client.publishAsync(BATCH, '{"batch":', { qos: 2 });
      await session.get();

      expect(errors.filter((m) => m.topic !== GET_RESPONSE).map((m) => [m.topic, JSON.parse(m.payload).code])).to.deep.equal([
        [UPDATE_RESPONSE, 'INVALID_JSON'],
        [BATCH_RESPONSE, 'INVALID_JSON'],
      ]);
      expect(await restShadow(stack, device)).to.deep.include({ data: { a: 1 }, rev: 1 });
    } finally {
      await session.end();
    }
  });
});
