import { expect } from 'chai';
import { Point } from '../../../src/timeseries/point';
import { deleteRangesOf } from '../../../src/timeseries/delete-ranges';
import { QueryBody } from '../../../src/timeseries/port';
import { validateQuery } from '../../../src/timeseries/query';
import { aDevice, TestDevice } from '../../helpers/devices';
import {
  closedPort, deleteMetrics, kairosDbRequest, kairosDbUrlOrSkip, silentLogger, storedCounts, uniqueMetric, waitForStored,
} from '../../helpers/kairosdb';
import { startStack, Stack } from '../../helpers/stack';
import { openTempStore, TempStore } from '../../helpers/timeseries-store';
import { createKairosDbTimeSeries, KairosDbTimeSeries } from '../../../src/adapters/kairosdb/kairosdb-timeseries';

const API = '/v2/feed/api/v1';
const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 2, 1);

describe('TIMESERIES=kairosdb: GET query, health, deleting history', function () {
  this.timeout(60_000);
  let url: string;
  let stack: Stack;
  let device: TestDevice;
  const base = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;

  before(async function () {
    url = await kairosDbUrlOrSkip(this);
    stack = await startStack({ env: { TIMESERIES: 'kairosdb', KAIROSDB_URL: url } });
    device = await aDevice(stack);
    const res = await stack.http('PUT', '/v2/device/shadow/batch', {
      headers: { authorization: device.auth },
      body: { batch: [0, 1, 2, 3].map((i) => ({ ts: base + i * 60_000, data: { temp: 20 + i, humid: 50 + i } })) },
    });
    expect(res.status, res.text).to.equal(200);
    await waitForStored(url, [device.deviceid], [8]);
  });
  after(async () => {
    if (url === undefined) return;
    await stack.stop();
    await deleteMetrics(url, [device.deviceid]);
  });

  const auth = () => ({ authorization: device.auth });

  it('answers the GET form from KairosDB', async () => {
    const query = { start_absolute: base, metrics: [{ name: device.deviceid, tags: { attr: ['temp'] } }] };
    const res = await stack.http('GET', `${API}/datapoints/query?query=${encodeURIComponent(JSON.stringify(query))}`, { headers: auth() });

    expect(res.status, res.text).to.equal(200);
    expect(res.body.queries[0].results[0].values.map((v: number[]) => v[1])).to.deep.equal([20, 21, 22, 23]);
  });

  it('reports KairosDB among the backends of /health/check and /health/status', async () => {
    const check = await stack.http('GET', `${API}/health/check`, { headers: auth() });
    const status = await stack.http('GET', `${API}/health/status`, { headers: auth() });

    expect(check.status).to.equal(204);
    expect(status.body).to.include('kairosdb: OK');
  });

  it('forwards POST /datapoints/delete: KairosDB no longer holds the points', async () => {
    const res = await stack.http('POST', `${API}/datapoints/delete`, {
      headers: auth(),
      body: { start_absolute: base + 60_000, metrics: [{ name: device.deviceid, tags: { attr: ['temp'] } }] },
    });

    expect(res.status, res.text).to.equal(204);
    const raw = await kairosDbRequest(url, 'POST', '/datapoints/query', {
      start_absolute: 0, metrics: [{ name: device.deviceid, group_by: [{ name: 'tag', tags: ['attr'] }] }],
    });
    const byAttr = Object.fromEntries(raw.body.queries[0].results.map((r: { tags: { attr: string[] }; values: number[][] }) => [r.tags.attr[0], r.values.map((v) => v[1])]));
    expect(byAttr).to.deep.equal({ humid: [50, 51, 52, 53], temp: [20] });
  });

  it('forwards DELETE /metric/{deviceid}: the metric leaves KairosDB', async () => {
    const res = await stack.http('DELETE', `${API}/metric/${device.deviceid}`, { headers: auth() });

    expect(res.status, res.text).to.equal(204);
    expect(await storedCounts(url, [device.deviceid])).to.deep.equal([0]);
    const names = await kairosDbRequest(url, 'GET', `/metricnames?prefix=${device.deviceid}`);
    expect(names.body.results).to.deep.equal([]);
  });

  it('answers 500 HEALTH_CHECK_FAILED and "kairosdb: FAIL" while KairosDB does not answer', async () => {
    const down = await startStack({ env: { TIMESERIES: 'kairosdb', KAIROSDB_URL: `http://127.0.0.1:${await closedPort()}` } });
    try {
      const other = await aDevice(down);
      const check = await down.http('GET', `${API}/health/check`, { headers: { authorization: other.auth } });
      const status = await down.http('GET', `${API}/health/status`, { headers: { authorization: other.auth } });

      expect(check.status).to.equal(500);
      expect(check.body.code).to.equal('HEALTH_CHECK_FAILED');
      expect(status.status).to.equal(200);
      expect(status.body).to.include('kairosdb: FAIL');
    } finally {
      await down.stop();
    }
  });
});

/**
 * The same delete bodies against KairosDB itself and the embedded store, over the same points: what is left must be
 * the same (reference §8: the range and tag filter of a query, inclusive, aggregators ignored, no end = unbounded).
 */
describe('POST /datapoints/delete: the embedded store deletes what KairosDB deletes', function () {
  this.timeout(60_000);
  let url: string;
  let kairos: KairosDbTimeSeries;
  let temp: TempStore;
  const metrics: string[] = [];

  before(async function () {
    url = await kairosDbUrlOrSkip(this);
    kairos = createKairosDbTimeSeries({ url, timeoutMs: 10_000, logger: silentLogger });
  });
  beforeEach(() => (temp = openTempStore()));
  afterEach(() => temp.dispose());
  after(async () => {
    if (url === undefined) return;
    await deleteMetrics(url, metrics);
    kairos.close();
  });

  const pointsFor = (metric: string): Point[] => [
    ...[0, 1, 2, 3, 4, 5].map((i) => ({ metric, tags: { attr: 'temp' }, timestamp: T0 + i * HOUR, value: i })),
    ...[0, 1, 2, 3, 4, 5].map((i) => ({ metric, tags: { attr: 'humid', room: 'a' }, timestamp: T0 + i * HOUR, value: 10 + i })),
    { metric, tags: { attr: 'temp' }, timestamp: Date.now() + 10 * HOUR, value: 99 },
  ];

  /** Every point left, per series, in a comparable form. */
  const leftInKairos = async (metric: string) => {
    const res = await kairosDbRequest(url, 'POST', '/datapoints/query', {
      start_absolute: -8.64e15, end_absolute: 8.64e15, metrics: [{ name: metric, group_by: [{ name: 'tag', tags: ['attr', 'room'] }] }],
    });
    return res.body.queries[0].results
      .filter((r: { values: unknown[] }) => r.values.length > 0)
      .map((r: { tags: Record<string, string[]>; values: number[][] }) => ({ attr: r.tags.attr[0], values: r.values }))
      .sort((a: { attr: string }, b: { attr: string }) => a.attr.localeCompare(b.attr));
  };
  const leftInStore = async (metric: string) =>
    (await temp.store.source.readSeries(metric, {}, -8.64e15, 8.64e15))
      .map((s) => ({ attr: s.tags.attr, values: Array.from(s.timestamps, (t, i) => [t, s.values[i]]) }))
      .sort((a, b) => a.attr.localeCompare(b.attr));

  const cases: [string, (metric: string) => Record<string, unknown>][] = [
    ['an inclusive range of one tag value', (m) => ({ start_absolute: T0 + HOUR, end_absolute: T0 + 3 * HOUR, metrics: [{ name: m, tags: { attr: ['temp'] } }] })],
    ['no end: through the future', (m) => ({ start_absolute: T0 + 4 * HOUR, metrics: [{ name: m }] })],
    ['a tag only some series have, aggregators ignored', (m) => ({
      start_absolute: T0, end_absolute: T0 + 2 * HOUR,
      metrics: [{ name: m, tags: { room: ['a'] }, aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'days' } }] }],
    })],
    ['a relative end', (m) => ({ start_absolute: T0, end_relative: { value: 1, unit: 'days' }, metrics: [{ name: m, tags: { attr: ['humid', 'temp'] } }] })],
  ];

  for (const [name, bodyFor] of cases) {
    it(name, async () => {
      const metric = uniqueMetric('delete');
      metrics.push(metric);
      const points = pointsFor(metric);
      await kairos.writer.writePoints(points);
      await temp.store.writer.writePoints(points);
      await waitForStored(url, [metric], [points.length]);
      const body = bodyFor(metric);

      const raw = await kairosDbRequest(url, 'POST', '/datapoints/delete', body);
      await temp.store.eraser.deletePoints(deleteRangesOf(validateQuery(body, Date.now()), body as QueryBody));

      expect(raw.status, JSON.stringify(raw.body)).to.equal(204);
      expect(await leftInStore(metric)).to.deep.equal(await leftInKairos(metric));
    });
  }
});
