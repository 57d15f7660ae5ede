import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { coapAs } from '../../helpers/coap';
import { aDevice, TestDevice } from '../../helpers/devices';
import { BATCH, BATCH_RESPONSE, pointsOf, restShadow, shadowSession, UPDATE, UPDATE_RESPONSE, UPDATED } from '../../helpers/mqtt-shadow';
import { asDevice } from '../../helpers/rest-device';
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

/** The warnings of a write that sends every kind of trouble at once. */
const TROUBLED_WRITE = { tempC: '20', humid: 120, place: 3, extra: true };
const TROUBLE = [
  { field: 'tempC', action: 'coerced', reason: 'type', message: '"20" (string) stored as 20 (number)' },
  { field: 'humid', action: 'dropped', reason: 'range', message: '120 is above the maximum 100' },
  { field: 'place', action: 'coerced', reason: 'type', message: '3 (number) stored as "3" (string)' },
  { field: 'extra', action: 'dropped', reason: 'additionalProperties', message: 'not a property of the schema, which has "additionalProperties": false' },
];

describe('shadow writes that follow a schema', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  async function withSchema(schema: unknown = SCHEMA): Promise<TestDevice> {
    const device = await aDevice(stack);
    const res = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, { body: schema });
    expect(res.status, res.text).to.equal(200);
    return device;
  }

  describe('over REST', () => {
    it('stores converted and computed fields and lists what it converted or dropped in "warnings"', async () => {
      const device = await withSchema();

      const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: TROUBLED_WRITE } });

      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({ data: { tempC: 20, place: '3', tempF: 68 }, applied: true });
      expect(res.body.warnings).to.deep.equal(TROUBLE);
    });

    it('sends no "warnings" member when nothing was converted or dropped', async () => {
      const device = await withSchema();

      const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { tempC: 10 } } });

      expect(res.body.data).to.deep.equal({ tempC: 10, tempF: 50 });
      expect(res.body).to.not.have.property('warnings');
    });

    it('records points of computed fields and not of store:false fields', async () => {
      const device = await withSchema();

      await asDevice(stack, device)('PUT', '/v2/device/shadow/data', { body: { data: { tempC: 10, place: 'hall' } } });

      expect((await pointsOf(stack, device, 'tempF')).map(([, v]) => v)).to.deep.equal([50]);
      expect((await pointsOf(stack, device, 'tempC')).map(([, v]) => v)).to.deep.equal([10]);
      const tags = await stack.http('GET', `/v2/feed/api/v1/tagvalues`, { headers: { authorization: device.auth } });
      expect(JSON.stringify(tags.body)).to.not.contain('place');
    });

    it('uses the group default for devices without a schema of their own; a device schema beats it', async () => {
      const projectid = `p-${randomUUID().slice(0, 8)}`;
      const [plain, own] = [await aDevice(stack, { projectid, groupid: 'g' }), await aDevice(stack, { projectid, groupid: 'g' })];
      await stack.admin('PUT', `/v2/admin/projects/${projectid}/groups/g/schema`, { body: { properties: { n: { type: 'number' } } } });
      await stack.admin('PUT', `/v2/admin/devices/${own.deviceid}/schema`, { body: { properties: { n: { type: 'string' } } } });

      const a = await asDevice(stack, plain)('PUT', '/v2/device/shadow/data', { body: { data: { n: '5' } } });
      const b = await asDevice(stack, own)('PUT', '/v2/device/shadow/data', { body: { data: { n: 5 } } });

      expect(a.body.data).to.deep.equal({ n: 5 });
      expect(b.body.data).to.deep.equal({ n: '5' });
    });

    it('runs the expressions of every batch item as if it were written alone, $$ being the item before (spec 4.6 rule 5)', async () => {
      const device = await withSchema({
        properties: { humid: { type: 'number', default: 50, operation: { transform: { expression: '0.5*$$.humid + 0.5*$.humid' } } } },
      });
      const batch = [{ data: { humid: 70 }, ts: -2000 }, { data: { humid: 90 }, ts: -1000 }, { data: { humid: 'x' }, ts: 0 }];

      const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/batch', { body: { batch } });

      expect(res.status, res.text).to.equal(200);
      // 50 -> 60 -> 75; the third item's humid cannot be a number, so its expression sees null and fails.
      expect((await restShadow(stack, device)).data).to.deep.equal({ humid: 75 });
      expect((await pointsOf(stack, device, 'humid')).map(([, v]) => v)).to.deep.equal([60, 75]);
      expect(res.body.response.warnings.map((w: { index: number; field: string; reason: string }) => [w.index, w.field, w.reason])).to.deep.equal([
        [2, 'humid', 'type'],
        [2, 'humid', 'expression'],
      ]);
    });

    it('names batch items by their index in the request, whatever their time order', async () => {
      const device = await withSchema();
      const batch = [{ data: { tempC: 1 }, ts: 0 }, { data: { tempC: 'warm' }, ts: -5000 }];

      const res = await asDevice(stack, device)('PUT', '/v2/device/shadow/batch', { body: { batch } });

      expect(res.body.response.warnings[0]).to.include({ index: 1, field: 'tempC', action: 'dropped' });
    });
  });

  describe('over MQTT', () => {
    it('puts the stored (converted, computed) data and the warnings in @shadow/data/updated', async () => {
      const device = await withSchema();
      const session = await shadowSession(stack, device);
      try {
        const updated = await session.ask(UPDATE, { data: TROUBLED_WRITE }, UPDATED);

        expect(updated.raw.startsWith(`{"deviceid":"${device.deviceid}","data":{`), updated.raw).to.equal(true);
        expect(updated.body.data).to.deep.equal({ tempC: 20, place: '3', tempF: 68 });
        expect(updated.body.warnings).to.deep.equal(TROUBLE);
      } finally {
        await session.end();
      }
    });

    it('answers a back-dated write with warnings on @private/shadow/data/update/response, since no update is announced', async () => {
      const device = await withSchema();
      const session = await shadowSession(stack, device);
      try {
        await session.ask(UPDATE, { data: { tempC: 1 } }, UPDATED);

        const reply = await session.ask(UPDATE, { data: { tempC: 2, extra: 1 }, timestamp: -60_000 }, UPDATE_RESPONSE);

        expect(reply.body).to.deep.include({ deviceid: device.deviceid, applied: false });
        expect(reply.body.warnings.map((w: { field: string }) => w.field)).to.deep.equal(['extra']);
      } finally {
        await session.end();
      }
    });

    it('answers a batch with warnings even without an ackid, and with one as usual', async () => {
      const device = await withSchema();
      const session = await shadowSession(stack, device);
      try {
        const withoutAck = await session.ask(BATCH, { batch: [{ data: { extra: 1 }, ts: 0 }] }, BATCH_RESPONSE);
        const withAck = await session.ask(BATCH, { ackid: 7, batch: [{ data: { humid: -1 }, ts: 0 }] }, BATCH_RESPONSE);

        expect(withoutAck.body).to.not.have.property('ackid');
        expect(withoutAck.body).to.deep.include({ total: 1, applied: 1 });
        expect(withoutAck.body.warnings[0]).to.include({ index: 0, field: 'extra', reason: 'additionalProperties' });
        expect(withAck.raw.startsWith('{"ackid":7,"total":1,'), withAck.raw).to.equal(true);
        expect(withAck.body.warnings[0]).to.include({ index: 0, field: 'humid', reason: 'range' });
      } finally {
        await session.end();
      }
    });
  });

  describe('over CoAP', () => {
    it('lists the warnings in the 2.04 reply of a write and of a batch', async () => {
      const device = await withSchema();
      const coap = coapAs(stack.coapUrl, device);

      const write = await coap('PUT', '/shadow/data', { payload: `{data:${JSON.stringify(TROUBLED_WRITE)}}` });
      const batch = await coap('PUT', '/shadow/batch', { payload: { batch: [{ data: { extra: 1 }, ts: 0 }] } });

      expect(write.code, write.text).to.equal('2.04');
      expect(write.body.warnings).to.deep.equal(TROUBLE);
      expect(batch.code, batch.text).to.equal('2.04');
      expect(batch.body.response.warnings[0]).to.include({ index: 0, field: 'extra' });
    });
  });
});
