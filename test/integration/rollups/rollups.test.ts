import { expect } from 'chai';
import { aGroup, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';
import { REFRESH_EVERY_MS } from '../../../src/timeseries/rollups/maintainer';
import { bothWays, declareRollups, HOUR, hourStart, MINUTE, until, writeHistory } from './rollup-feed';

/** Sums of quarters are exact in binary: tier sums equal the raw sums to the bit (docs/data-store.md "Roll-ups"). */
const quarter = (i: number) => ((i * 37) % 41) / 4;

describe('roll-ups on the embedded engine (issue 23 §3)', function () {
  this.timeout(60_000);
  let stack: Stack;
  let device: TestDevice;
  let auth: string;
  const base = hourStart(Date.now()) - 4 * HOUR;

  before(async () => {
    stack = await startStack();
    [device] = await aGroup(stack, 1);
    // Four hours of two fields, one point every 7 minutes, plus a field seen only twice.
    await writeHistory(stack, device, Array.from({ length: 34 }, (_, i) => ({
      ts: base + i * 7 * MINUTE + 1000,
      data: { temp: 20 + quarter(i), humid: 50 - quarter(i + 3), ...(i % 17 === 0 ? { door: i } : {}) },
    })));
    auth = `Bearer ${(await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: device.projectid, ttl: 600, scope: 'write' } })).body.token}`;
    await declareRollups(stack, device.projectid, [{ period: '1m', retention: 'unlimited' }, { period: '1h', retention: '1y' }]);
  });
  after(() => stack.stop());

  const query = (aggregator: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
    start_absolute: base, end_absolute: base + 4 * HOUR - 1,
    metrics: [{ name: device.deviceid, aggregators: [aggregator], ...more }],
  });

  describe('answers equal to the raw answers', () => {
    const samplings = [
      { sampling: { value: 1, unit: 'hours' }, tier: '1h' },
      { sampling: { value: 2, unit: 'hours' }, tier: '1h' },
      { sampling: { value: 30, unit: 'minutes' }, tier: '1m' },
      { sampling: { value: 1, unit: 'days' }, tier: '1h' },
    ];
    for (const name of ['avg', 'min', 'max', 'sum', 'count']) {
      for (const { sampling, tier } of samplings) {
        it(`${name} by ${sampling.value} ${sampling.unit}, one result and one per field, from the ${tier} tier`, async () => {
          for (const [aggregator, more] of [
            [{ name, sampling }, {}],
            [{ name, sampling, align_start_time: true }, { group_by: [{ name: 'tag', tags: ['attr'] }] }],
            [{ name, sampling, align_sampling: true }, { tags: { attr: ['temp', 'door'] } }],
          ] as const) {
            const { served, raw } = await bothWays(stack, auth, query(aggregator, more));

            expect(served.tier).to.equal(tier);
            expect(raw.tier).to.equal(null);
            expect(served.body).to.deep.equal(raw.body);
          }
        });
      }
    }

    it('reads the partial tier buckets at both ends of the range raw (start and end off the hour)', async () => {
      const body = {
        start_absolute: base + 13 * MINUTE + 500, end_absolute: base + 3 * HOUR + 31 * MINUTE,
        metrics: [{ name: device.deviceid, aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' }, align_sampling: true }, { name: 'scale', factor: 2 }] }],
      };
      const { served, raw } = await bothWays(stack, auth, body);

      expect(served.tier).to.equal('1h');
      expect(served.body).to.deep.equal(raw.body);
      expect(served.body.queries[0].sample_size).to.be.greaterThan(0);
    });
  });

  describe('queries a tier cannot answer exactly are answered raw, without the header', () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['a limit', { name: 'avg', sampling: { value: 1, unit: 'hours' } }, { limit: 5 }],
      ['a sampling that is not whole tier periods', { name: 'avg', sampling: { value: 90, unit: 'seconds' } }, {}],
      ['an aggregator a tier does not keep', { name: 'percentile', percentile: 0.5, sampling: { value: 1, unit: 'hours' } }, {}],
      ['a group by value', { name: 'avg', sampling: { value: 1, unit: 'hours' } }, { group_by: [{ name: 'value', range_size: 10 }] }],
      ['a calendar sampling outside UTC', { name: 'avg', sampling: { value: 1, unit: 'days' }, time_zone: 'Asia/Bangkok' }, {}],
    ];
    for (const [what, aggregator, more] of cases) {
      it(`with ${what}`, async () => {
        const { served, raw } = await bothWays(stack, auth, query(aggregator, more));

        expect(served.tier).to.equal(null);
        expect(served.body).to.deep.equal(raw.body);
      });
    }

    it('with a start off the tier boundary and no align_sampling (the buckets start there)', async () => {
      const body = { ...query({ name: 'sum', sampling: { value: 1, unit: 'hours' } }), start_absolute: base + 1 };
      const { served } = await bothWays(stack, auth, body);

      expect(served.tier).to.equal(null);
    });
  });

  describe('kept up to date', () => {
    const hourly = () => query({ name: 'avg', sampling: { value: 1, unit: 'hours' } }, { group_by: [{ name: 'tag', tags: ['attr'] }] });
    const afterTheLag = () => new Promise((resolve) => setTimeout(resolve, 2 * REFRESH_EVERY_MS + 500));

    it('answers an overwritten point at once (its bucket is read raw), and from the updated tier after the lag', async () => {
      await writeHistory(stack, device, [{ ts: base + 7 * MINUTE + 1000, data: { temp: 1000 } }]);
      const now = await bothWays(stack, auth, hourly());
      expect(now.served.body).to.deep.equal(now.raw.body);

      await afterTheLag();
      const later = await bothWays(stack, auth, hourly());

      expect(later.served.tier).to.equal('1h');
      expect(later.served.body).to.deep.equal(later.raw.body);
      const temp = later.served.body.queries[0].results.find((r: { tags: { attr: string[] } }) => r.tags.attr[0] === 'temp');
      expect(temp.values[0][1]).to.be.greaterThan(100);
    });

    it('reflects a deleted range, whole tier buckets and partial ones', async () => {
      const res = await stack.http('POST', '/v2/feed/api/v1/datapoints/delete', {
        headers: { authorization: auth },
        body: { start_absolute: base + HOUR - 20 * MINUTE, end_absolute: base + 2 * HOUR + 10 * MINUTE, metrics: [{ name: device.deviceid, tags: { attr: ['humid'] } }] },
      });
      expect(res.status, res.text).to.equal(204);

      await afterTheLag();
      const { served, raw } = await bothWays(stack, auth, hourly());

      expect(served.tier).to.equal('1h');
      expect(served.body).to.deep.equal(raw.body);
      const humid = served.body.queries[0].results.find((r: { tags: { attr: string[] } }) => r.tags.attr[0] === 'humid');
      expect(humid.values.map((v: number[]) => v[0])).to.not.include(base + HOUR + 1000 + 4 * 7 * MINUTE - HOUR);
    });

    it('deletes the tier buckets with the raw points they summarize', async () => {
      const before = await bothWays(stack, auth, hourly());
      const res = await stack.http('POST', '/v2/feed/api/v1/datapoints/delete', {
        headers: { authorization: 'Bearer test-admin-token-0123456789' },
        body: { start_absolute: base, end_absolute: base + 4 * HOUR - 1, metrics: [{ name: device.deviceid }] },
      });
      expect(res.status, res.text).to.equal(204);
      await afterTheLag();
      const after = await bothWays(stack, auth, hourly());
      expect(after.raw.body.queries[0].sample_size).to.equal(0);
      expect(after.served.body).to.deep.equal(after.raw.body);
      expect(before.served.body.queries[0].sample_size).to.be.greaterThan(0);
    });
  });

  describe('expiry', () => {
    const ADMIN = 'Bearer test-admin-token-0123456789';
    const minuteStart = (t: number) => t - (t % MINUTE);

    it('still answers from the tier once the raw points have expired', async () => {
      const [other] = await aGroup(stack, 1);
      await declareRollups(stack, other.projectid, [{ period: '1m', retention: 'unlimited' }]);
      const retention = await stack.admin('PUT', `/v2/admin/projects/${other.projectid}/retention`, { body: { retention: '1h' } });
      expect(retention.status, retention.text).to.equal(200);
      // Points that expire (timestamp + 1 h) 12 to 15 s from now, once the tier has them.
      const first = Date.now() - HOUR + 12_000;
      await writeHistory(stack, other, [0, 1, 2, 3].map((i) => ({ ts: first + i * 1000, data: { temp: 10 + i } })));
      const body = {
        start_absolute: minuteStart(first), end_absolute: minuteStart(first + 3000) + MINUTE - 1,
        metrics: [{ name: other.deviceid, aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'minutes' }, align_start_time: true }] }],
      };
      await new Promise((resolve) => setTimeout(resolve, 2 * REFRESH_EVERY_MS + 500));
      const before = await bothWays(stack, ADMIN, body);
      expect(before.served.tier).to.equal('1m');
      expect(before.served.body).to.deep.equal(before.raw.body);

      await until(async () => (await bothWays(stack, ADMIN, body)).raw.body.queries[0].sample_size === 0, 25_000, 'raw points expired');
      const after = await bothWays(stack, ADMIN, body);

      expect(after.served.tier).to.equal('1m');
      expect(after.served.body).to.deep.equal(before.served.body);
    });

    it('drops tier points once their own retention has passed', async () => {
      const [other] = await aGroup(stack, 1);
      const bucket = minuteStart(Date.now()) - MINUTE;
      // A tier point expires its retention after its bucket ends: about 6 s from now.
      const retentionMs = Date.now() + 6000 - (bucket + MINUTE);
      await declareRollups(stack, other.projectid, [{ period: '1m', retention: retentionMs }]);
      await writeHistory(stack, other, [{ ts: bucket + 1000, data: { temp: 5 } }]);
      const tierPoints = async () => {
        const res = await stack.http('POST', '/v2/feed/api/v1/datapoints/query', {
          headers: { authorization: ADMIN },
          body: { start_absolute: bucket, end_absolute: bucket + MINUTE - 1, metrics: [{ name: `$rollup/1m/${other.deviceid}` }] },
        });
        expect(res.status, res.text).to.equal(200);
        return res.body.queries[0].sample_size as number;
      };
      await until(async () => (await tierPoints()) === 5, 10_000, 'tier points written');

      await until(async () => (await tierPoints()) === 0, 20_000, 'tier points expired');
    });
  });
});
