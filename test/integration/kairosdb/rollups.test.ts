import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { deleteMetrics, kairosDbUrlOrSkip, pollUntil } from '../../helpers/kairosdb';
import { startStack, Stack } from '../../helpers/stack';
import { REFRESH_EVERY_MS } from '../../../src/timeseries/rollups/maintainer';
import { API, bothWays, declareRollups, HOUR, hourStart, MINUTE, writeHistory } from '../rollups/rollup-feed';

describe('TIMESERIES=kairosdb: roll-ups kept in KairosDB as metrics of their own (issue 23 §3)', function () {
  this.timeout(90_000);
  let url: string;
  let stack: Stack;
  let device: TestDevice;
  let auth: string;
  const base = hourStart(Date.now()) - 3 * HOUR;
  const POINTS = 26;

  before(async function () {
    url = await kairosDbUrlOrSkip(this);
    stack = await startStack({ env: { TIMESERIES: 'kairosdb', KAIROSDB_URL: url } });
    device = await aDevice(stack);
    auth = `Bearer ${(await stack.admin('POST', '/v2/admin/tokens', { body: { projectid: device.projectid, ttl: 600 } })).body.token}`;
    await writeHistory(stack, device, Array.from({ length: POINTS }, (_, i) => ({
      ts: base + i * 7 * MINUTE + 1000, data: { temp: 20 + ((i * 5) % 9) / 4, humid: 60 - (i % 4) / 2 },
    })));
    await pollUntil(() => bothWays(stack, auth, { start_absolute: base, metrics: [{ name: device.deviceid }] }),
      (both) => both.raw.body.queries[0].sample_size === 2 * POINTS);
    await declareRollups(stack, device.projectid, [{ period: '1m', retention: '1y' }, { period: '1h', retention: 'unlimited' }]);
  });
  after(async () => {
    if (url === undefined) return;
    await stack.stop();
    await deleteMetrics(url, [device.deviceid, `$rollup/1m/${device.deviceid}`, `$rollup/1h/${device.deviceid}`]);
  });

  const query = (aggregator: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
    start_absolute: base, end_absolute: base + 3 * HOUR - 1, metrics: [{ name: device.deviceid, aggregators: [aggregator], ...more }],
  });

  for (const name of ['avg', 'min', 'max', 'sum', 'count']) {
    it(`answers ${name} from a tier exactly as KairosDB answers it from the raw points`, async () => {
      for (const [aggregator, more, tier] of [
        [{ name, sampling: { value: 1, unit: 'hours' } }, {}, '1h'],
        [{ name, sampling: { value: 20, unit: 'minutes' }, align_start_time: true }, { group_by: [{ name: 'tag', tags: ['attr'] }] }, '1m'],
      ] as const) {
        const { served, raw } = await bothWays(stack, auth, query(aggregator, more));

        expect(served.tier).to.equal(tier);
        expect(served.body).to.deep.equal(raw.body);
      }
    });
  }

  it('answers a query the tiers cannot serve from KairosDB, without the header', async () => {
    const { served, raw } = await bothWays(stack, auth, query({ name: 'dev', sampling: { value: 1, unit: 'hours' } }));

    expect(served.tier).to.equal(null);
    expect(served.body).to.deep.equal(raw.body);
  });

  it('reflects an overwritten point', async () => {
    await writeHistory(stack, device, [{ ts: base + 1000, data: { temp: 500 } }]);
    const hourly = query({ name: 'max', sampling: { value: 1, unit: 'hours' } }, { tags: { attr: ['temp'] } });
    await pollUntil(() => bothWays(stack, auth, hourly), (both) => both.raw.body.queries[0].results[0].values[0][1] === 500);
    await new Promise((resolve) => setTimeout(resolve, 3 * REFRESH_EVERY_MS + 1000));

    const { served, raw } = await bothWays(stack, auth, hourly);

    expect(served.tier).to.equal('1h');
    expect(served.body).to.deep.equal(raw.body);
  });

  it('keeps the tier metrics out of the caller\'s metric names', async () => {
    const res = await stack.http('GET', `${API}/metricnames`, { headers: { authorization: auth } });

    expect(res.status, res.text).to.equal(200);
    expect(res.body.results).to.include(device.deviceid);
    expect(res.body.results.filter((name: string) => name.startsWith('$rollup/'))).to.deep.equal([]);
  });
});
