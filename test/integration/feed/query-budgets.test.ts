import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { HttpResponse } from '../../helpers/http';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';
const MINUTE = 60_000;

/** 200 points of `temp`, one a minute, ending a minute ago, and their first timestamp. */
async function writeTemps(stack: Stack, device: TestDevice): Promise<number> {
  const first = Math.floor(Date.now() / MINUTE) * MINUTE - 200 * MINUTE;
  for (let b = 0; b < 2; b++) {
    const batch = Array.from({ length: 100 }, (_, i) => ({ ts: first + (b * 100 + i) * MINUTE, data: { temp: (b * 100 + i) % 7 } }));
    const res = await stack.http('PUT', '/v2/device/shadow/batch', { headers: { authorization: device.auth }, body: { batch } });
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    // Each batch reaches the time-series store as a write of its own (every feed call moves the outbox first): the
    // scan budget counts the stored fragments a read decodes, and the outbox relay would otherwise join both batches
    // into one fragment of 200 points (RELAY_DELAY_MS, docs/operations.md "Performance").
    const flushed = await stack.http('GET', '/v2/feed/api/v1/metricnames', { headers: { authorization: device.auth } });
    expect(flushed.status, flushed.text.slice(0, 300)).to.equal(200);
  }
  return first;
}

/** A refusal over a budget: the status and code, KairosDB's `errors` and the budget's variable and value. */
function expectOverBudget(res: HttpResponse, status: number, code: string, budget: string, limit: number): void {
  expect(res.status, res.text.slice(0, 300)).to.equal(status);
  expect(res.body).to.include({ status, code, budget, limit });
  expect(res.body.errors).to.be.an('array').with.length(1);
  expect(res.body.errors[0]).to.include(budget);
}

describe('POST /v2/feed/api/v1/datapoints/query: budgets (issue 10)', function () {
  this.timeout(30_000);

  describe('with the default budgets', () => {
    let stack: Stack;
    let device: TestDevice;
    before(async () => {
      stack = await startStack();
      device = await aDevice(stack);
      await writeTemps(stack, device);
    });
    after(() => stack.stop());

    it('refuses a gaps query of millions of empty ranges at once with 413, before reading anything', async () => {
      const started = Date.now();
      const res = await stack.http('POST', QUERY, {
        headers: { authorization: device.auth },
        body: {
          start_relative: { value: 80, unit: 'minutes' },
          metrics: [{ name: device.deviceid, aggregators: [{ name: 'gaps', sampling: { value: 1, unit: 'milliseconds' } }] }],
        },
      });
      expectOverBudget(res, 413, 'QUERY_TOO_LARGE', 'QUERY_MAX_POINTS_RETURNED', 1_000_000);
      expect(Date.now() - started).to.be.below(1000);
    });

    it('answers a large allowed query whole, as the same JSON as before streaming', async () => {
      const res = await stack.http('POST', QUERY, {
        headers: { authorization: device.auth },
        body: {
          start_relative: { value: 300, unit: 'minutes' },
          metrics: [{ name: device.deviceid, aggregators: [{ name: 'gaps', sampling: { value: 1, unit: 'seconds' } }] }],
        },
      });
      expect(res.status).to.equal(200);
      const values: [number, number | null][] = res.body.queries[0].results[0].values;
      expect(values.length).to.be.within(17_990, 18_010);
      expect(values.filter((v) => v[1] !== null)).to.have.length(200);
      expect(res.text === JSON.stringify(res.body), "the answer as JSON.stringify prints it").to.equal(true);
    });
  });

  describe('with small budgets', () => {
    let stack: Stack;
    let device: TestDevice;
    let first: number;
    before(async () => {
      stack = await startStack({
        env: {
          QUERY_MAX_POINTS_SCANNED: '150',
          QUERY_MAX_POINTS_RETURNED: '50',
          QUERY_MAX_RESPONSE_BYTES: '600',
          QUERY_MAX_GROUPS: '3',
          QUERY_TIMEOUT_MS: '300',
        },
      });
      device = await aDevice(stack);
      first = await writeTemps(stack, device);
    });
    after(() => stack.stop());

    const query = (metric: Record<string, unknown>, start = first) =>
      stack.http('POST', QUERY, { headers: { authorization: device.auth }, body: { start_absolute: start, metrics: [{ name: device.deviceid, ...metric }] } });

    it('refuses a query that would scan more points than QUERY_MAX_POINTS_SCANNED', async () => {
      expectOverBudget(await query({ aggregators: [{ name: 'count', sampling: { value: 1, unit: 'days' } }] }), 413, 'QUERY_TOO_LARGE', 'QUERY_MAX_POINTS_SCANNED', 150);
    });

    it('refuses an answer of more points than QUERY_MAX_POINTS_RETURNED, found while producing it', async () => {
      expectOverBudget(await query({}, first + 100 * MINUTE), 413, 'QUERY_TOO_LARGE', 'QUERY_MAX_POINTS_RETURNED', 50);
    });

    it('refuses an answer of more bytes than QUERY_MAX_RESPONSE_BYTES', async () => {
      // 30 points: about 740 bytes.
      expectOverBudget(await query({}, first + 170 * MINUTE), 413, 'QUERY_TOO_LARGE', 'QUERY_MAX_RESPONSE_BYTES', 600);
    });

    it('refuses more groups than QUERY_MAX_GROUPS', async () => {
      const res = await query({ group_by: [{ name: 'value', range_size: 1 }] }, first + 190 * MINUTE);
      expectOverBudget(res, 413, 'QUERY_TOO_LARGE', 'QUERY_MAX_GROUPS', 3);
    });

    it('stops a query that runs longer than QUERY_TIMEOUT_MS with 400', async () => {
      const started = Date.now();
      // 10 points of 80 ms each: 800 ms, within the script's own limit of 1000 ms per call.
      const res = await query({
        aggregators: [{ name: 'js_function', script: 'var t = Date.now(); while (Date.now() - t < 80) {} return value' }],
      }, first + 190 * MINUTE);
      expectOverBudget(res, 400, 'QUERY_TIMEOUT', 'QUERY_TIMEOUT_MS', 300);
      expect(Date.now() - started).to.be.below(800);
    });

    it('answers within every budget as before', async () => {
      const res = await query({ aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' } }] }, first + 110 * MINUTE);
      expect(res.status, res.text.slice(0, 300)).to.equal(200);
      expect(res.body.queries[0].sample_size).to.equal(90);
    });
  });
});
