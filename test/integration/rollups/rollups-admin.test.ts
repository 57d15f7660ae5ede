import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';
import { API, declareRollups, hourStart, HOUR, MINUTE, until, writeHistory } from './rollup-feed';

const ADMIN = 'Bearer test-admin-token-0123456789';

describe('GET, PUT and DELETE /v2/admin/projects/:projectid/rollups', function () {
  this.timeout(30_000);
  let stack: Stack;
  let device: TestDevice;
  const path = () => `/v2/admin/projects/${device.projectid}/rollups`;

  before(async () => {
    stack = await startStack();
    device = await aDevice(stack);
  });
  after(() => stack.stop());

  it('answers no tiers for a project without roll-ups', async () => {
    const res = await stack.admin('GET', path());

    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ projectid: device.projectid, tiers: [], status: 'none' });
  });

  it('stores tiers sorted by period, as short text, building until the history is rolled up', async () => {
    const res = await stack.admin('PUT', path(), { body: { tiers: [{ period: '60m', retention: 'unlimited' }, { period: 60_000, retention: '30d' }] } });

    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({
      projectid: device.projectid, tiers: [{ period: '1m', retention: '30d' }, { period: '1h', retention: 'unlimited' }], status: 'building',
    });
    await until(async () => (await stack.admin('GET', path())).body.status === 'ready', 10_000, 'built');
  });

  const refusals: [string, unknown][] = [
    ['a period that is not whole minutes', { tiers: [{ period: '90s', retention: '1d' }] }],
    ['a period that does not divide a day', { tiers: [{ period: '7m', retention: '1d' }] }],
    ['two tiers of one period', { tiers: [{ period: '1h', retention: '1d' }, { period: '60m', retention: '2d' }] }],
    ['more than 4 tiers', { tiers: ['1m', '5m', '15m', '1h', '1d'].map((period) => ({ period, retention: '1y' })) }],
    ['no tier', { tiers: [] }],
    ['a retention that is no duration', { tiers: [{ period: '1h', retention: 'forever' }] }],
    ['an unknown member', { tiers: [{ period: '1h', retention: '1d', aggregates: ['avg'] }] }],
  ];
  for (const [what, body] of refusals) {
    it(`refuses ${what} with 400 INVALID_BODY and keeps the tiers it had`, async () => {
      const res = await stack.admin('PUT', path(), { body });

      expect(res.status, res.text).to.equal(400);
      expect(res.body.code).to.equal('INVALID_BODY');
      expect((await stack.admin('GET', path())).body.tiers).to.have.length(2);
    });
  }

  it('drops the points of a tier no longer declared, and every tier with DELETE', async () => {
    const base = hourStart(Date.now()) - HOUR;
    await writeHistory(stack, device, [{ ts: base + MINUTE, data: { temp: 1 } }]);
    const tierSize = async (period: string) => {
      const res = await stack.http('POST', `${API}/datapoints/query`, {
        headers: { authorization: ADMIN },
        body: { start_absolute: base, end_absolute: base + HOUR, metrics: [{ name: `$rollup/${period}/${device.deviceid}` }] },
      });
      return res.body.queries[0].sample_size as number;
    };
    await until(async () => (await tierSize('1m')) === 5 && (await tierSize('1h')) === 5, 10_000, 'tier points written');

    await declareRollups(stack, device.projectid, [{ period: '1h', retention: 'unlimited' }]);
    expect(await tierSize('1m')).to.equal(0);
    expect(await tierSize('1h')).to.equal(5);

    const res = await stack.admin('DELETE', path());
    expect(res.status).to.equal(204);
    await until(async () => (await tierSize('1h')) === 0, 10_000, 'tier points deleted');
    expect((await stack.admin('GET', path())).body.status).to.equal('none');
  });
});
