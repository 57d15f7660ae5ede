import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { deleteMetrics, kairosDbUrlOrSkip, pollUntil } from '../../helpers/kairosdb';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';
const MINUTE = 60_000;

/**
 * Issue 10 over TIMESERIES=kairosdb (docs/data-store.md "Query budgets"): the estimate and the answer's budgets apply
 * as over the embedded engine; KairosDB's own answer is cut off at QUERY_MAX_RESPONSE_BYTES as it arrives.
 */
describe('TIMESERIES=kairosdb: query budgets (issue 10)', function () {
  this.timeout(60_000);
  let url: string;
  let stack: Stack;
  let device: TestDevice;
  const first = Math.floor(Date.now() / MINUTE) * MINUTE - 100 * MINUTE;

  before(async function () {
    url = await kairosDbUrlOrSkip(this);
    stack = await startStack({
      env: { TIMESERIES: 'kairosdb', KAIROSDB_URL: url, QUERY_MAX_RESPONSE_BYTES: '1500', QUERY_MAX_POINTS_RETURNED: '50' },
    });
    device = await aDevice(stack);
    const batch = Array.from({ length: 90 }, (_, i) => ({ ts: first + i * MINUTE, data: { temp: i } }));
    const res = await stack.http('PUT', '/v2/device/shadow/batch', { headers: { authorization: device.auth }, body: { batch } });
    expect(res.status, res.text).to.equal(200);
    await pollUntil(() => query({ start_absolute: first, metrics: [{ name: device.deviceid, aggregators: [{ name: 'count', sampling: { value: 1, unit: 'days' } }] }] }),
      (r) => r.status === 200 && r.body.queries[0].results[0].values[0]?.[1] === 90);
  });
  after(async () => {
    if (url === undefined) return;
    await stack.stop();
    await deleteMetrics(url, [device.deviceid]);
  });

  const query = (body: object) => stack.http('POST', QUERY, { headers: { authorization: device.auth }, body });

  it('refuses the absurd gaps query before forwarding it', async () => {
    const res = await query({ start_relative: { value: 80, unit: 'minutes' }, metrics: [{ name: device.deviceid, aggregators: [{ name: 'gaps', sampling: { value: 1, unit: 'milliseconds' } }] }] });
    expect(res.status).to.equal(413);
    expect(res.body).to.include({ code: 'QUERY_TOO_LARGE', budget: 'QUERY_MAX_POINTS_RETURNED', limit: 50 });
  });

  it('refuses an answer of KairosDB larger than QUERY_MAX_RESPONSE_BYTES', async () => {
    // 90 points: KairosDB's JSON is about 1.8 KB.
    const res = await query({ start_absolute: first, metrics: [{ name: device.deviceid }] });
    expect(res.status, res.text.slice(0, 300)).to.equal(413);
    expect(res.body).to.include({ code: 'QUERY_TOO_LARGE', budget: 'QUERY_MAX_RESPONSE_BYTES', limit: 1500 });
    expect(res.body.errors).to.have.length(1);
  });

  it('refuses an answer of more points than QUERY_MAX_POINTS_RETURNED', async () => {
    // 55 points, about 1.1 KB.
    const res = await query({ start_absolute: first + 35 * MINUTE, metrics: [{ name: device.deviceid }] });
    expect(res.status, res.text.slice(0, 300)).to.equal(413);
    expect(res.body).to.include({ code: 'QUERY_TOO_LARGE', budget: 'QUERY_MAX_POINTS_RETURNED', limit: 50 });
  });

  it('answers within its budgets as before', async () => {
    const res = await query({ start_absolute: first, metrics: [{ name: device.deviceid, aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' } }] }] });
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    expect(res.body.queries[0].sample_size).to.equal(90);
  });
});
