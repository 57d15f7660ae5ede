import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { closedPort, deleteMetrics, kairosDbUrlOrSkip, pollUntil, storedCounts } from '../../helpers/kairosdb';
import { HttpResponse } from '../../helpers/http';
import { startStack, Stack } from '../../helpers/stack';

const QUERY = '/v2/feed/api/v1/datapoints/query';
const HOUR = 3_600_000;

/** Four items of a shadow batch, a minute apart: numbers, a nested number, a boolean, and fields that are no points. */
const batchFrom = (base: number) => [0, 1, 2, 3].map((i) => ({
  ts: base + i * 60_000,
  data: { temp: 20 + i, env: { humid: 50 + i, ok: i % 2 === 0 }, label: 'text' },
}));

type Result = { tags: { attr: string[] }; values: [number, number][] };

describe('TIMESERIES=kairosdb: the service over the real KairosDB', function () {
  this.timeout(60_000);
  let url: string;
  let stack: Stack;
  let device: TestDevice;
  const base = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;

  before(async function () {
    url = await kairosDbUrlOrSkip(this);
    stack = await startStack({ env: { TIMESERIES: 'kairosdb', KAIROSDB_URL: url } });
    device = await aDevice(stack);
    const res = await stack.http('PUT', '/v2/device/shadow/batch', { headers: { authorization: device.auth }, body: { batch: batchFrom(base) } });
    expect(res.status, res.text).to.equal(200);
  });
  after(async () => {
    if (url === undefined) return;
    await stack.stop();
    await deleteMetrics(url, [device.deviceid]);
  });

  const query = (body: object) => stack.http('POST', QUERY, { headers: { authorization: device.auth }, body });
  /** KairosDB makes points readable about a second after it took them. */
  const pollQuery = (body: object, done: (res: HttpResponse) => boolean) => pollUntil(() => query(body), (res) => res.status !== 200 || done(res));

  it('answers /v2/feed queries with the points of a REST batch write, read from KairosDB', async () => {
    const body = { start_absolute: base, metrics: [{ name: device.deviceid, group_by: [{ name: 'tag', tags: ['attr'] }] }] };
    const res = await pollQuery(body, (r) => r.body.queries[0].sample_size === 12);

    expect(res.status, res.text).to.equal(200);
    const byField = Object.fromEntries(res.body.queries[0].results.map((r: Result) => [r.tags.attr[0], r.values.map((v) => v[1])]));
    expect(byField).to.deep.equal({ temp: [20, 21, 22, 23], 'env.humid': [50, 51, 52, 53], 'env.ok': [1, 0, 1, 0] });
    expect(res.body.queries[0]).to.not.have.property('keys_scanned');
  });

  it('runs histogram and js_function in the service over what KairosDB returns', async () => {
    const res = await pollQuery({
      start_absolute: base,
      metrics: [{
        name: device.deviceid, tags: { attr: 'temp' },
        aggregators: [{ name: 'sum', sampling: { value: 2, unit: 'minutes' } }, { name: 'histogram', percentile: 0.5, sampling: { value: 1, unit: 'hours' } }, { name: 'js_function', script: 'value * 10' }],
      }],
    }, (r) => r.body.queries[0].sample_size === 4);

    expect(res.status, res.text).to.equal(200);
    // sums of 2-minute buckets: 41, 45; their median: 43.
    expect(res.body.queries[0].results[0].values).to.deep.equal([[base, 430]]);
  });

  it('answers a query naming the device by `<groupid>/<alias>` from KairosDB, under that name', async () => {
    const name = `${device.groupid}/${device.alias}`;
    const body = (metric: string) => ({ start_absolute: base, metrics: [{ name: metric, tags: { attr: ['temp'] } }] });
    const byId = await pollQuery(body(device.deviceid), (r) => r.body.queries[0].sample_size === 4);
    const byName = await query(body(name));

    expect(byName.status, byName.text).to.equal(200);
    expect(byName.body.queries[0].results[0].name).to.equal(name);
    expect(byName.body.queries[0].results[0].values).to.deep.equal(byId.body.queries[0].results[0].values);
  });

  it("answers KairosDB's refusals in KairosDB's format", async () => {
    const res = await query({ start_absolute: base, time_zone: 'America/Ciudad_Juarez', metrics: [{ name: device.deviceid }] });

    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('KAIROS_QUERY_INVALID');
    expect(res.body.errors[0]).to.match(/^query\.America\/Ciudad_Juarez is not a valid time zone/);
  });

  it("lists only the caller's metrics and their tags, from KairosDB", async () => {
    const names = await stack.http('GET', '/v2/feed/api/v1/metricnames', { headers: { authorization: device.auth } });
    const tagNames = await stack.http('GET', '/v2/feed/api/v1/tagnames', { headers: { authorization: device.auth } });
    const tagValues = await stack.http('GET', '/v2/feed/api/v1/tagvalues', { headers: { authorization: device.auth } });

    expect(names.body.results).to.deep.equal([device.deviceid, `${device.groupid}/${device.alias}`].sort());
    expect(tagNames.body.results).to.deep.equal(['attr']);
    expect(tagValues.body.results).to.deep.equal(['env.humid', 'env.ok', 'temp']);
  });

  it('reports KairosDB in /readyz', async () => {
    const res = await stack.http('GET', '/readyz');

    expect(res.status, res.text).to.equal(200);
    expect(res.body.checks.kairosdb.status).to.equal('ok');
    expect(res.body.checks).to.not.have.property('timeseries');
  });
});

describe('TIMESERIES=kairosdb while KairosDB is unreachable', function () {
  this.timeout(60_000);
  let stack: Stack;
  let device: TestDevice;
  const base = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;

  before(async () => {
    const env = { TIMESERIES: 'kairosdb', KAIROSDB_URL: `http://127.0.0.1:${await closedPort()}`, KAIROSDB_TIMEOUT_MS: '1000' };
    stack = await startStack({ env });
    device = await aDevice(stack);
  });
  after(() => stack.stop());

  it('answers queries with 503 BACKEND_UNAVAILABLE and a body that says why', async () => {
    const res = await stack.http('POST', QUERY, { headers: { authorization: device.auth }, body: { start_absolute: base, metrics: [{ name: device.deviceid }] } });

    expect(res.status).to.equal(503);
    expect(res.body).to.deep.include({
      status: 503,
      code: 'BACKEND_UNAVAILABLE',
      message: 'the time-series backend (KairosDB) is unavailable: connection refused; try again later',
      errors: ['the time-series backend (KairosDB) is unavailable: connection refused; try again later'],
    });
  });

  it('is not ready, naming the kairosdb check', async () => {
    const res = await stack.http('GET', '/readyz');

    expect(res.status).to.equal(503);
    expect(res.body.checks.kairosdb.status).to.equal('fail');
  });

  it('acknowledges shadow writes, keeps their points queued, and delivers them once KairosDB is back', async function () {
    const url = await kairosDbUrlOrSkip(this);
    const write = await stack.http('PUT', '/v2/device/shadow/batch', { headers: { authorization: device.auth }, body: { batch: batchFrom(base) } });
    expect(write.status, write.text).to.equal(200);

    // The same data dir (its outbox), now with the real KairosDB: the relay moves the queued points at start.
    await stack.stop({ keepData: true });
    stack = await startStack({ dataDir: stack.dataDir, env: { TIMESERIES: 'kairosdb', KAIROSDB_URL: url } });
    try {
      await pollUntil(() => storedCounts(url, [device.deviceid]), ([count]) => count === 12);
    } finally {
      await deleteMetrics(url, [device.deviceid]);
    }
  });
});
