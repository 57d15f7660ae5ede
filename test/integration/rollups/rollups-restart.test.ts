import { expect } from 'chai';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database';
import { createSqliteRollupStore } from '../../../src/adapters/sqlite/sqlite-rollup-store';
import { aDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';
import { API, declareRollups, HOUR, hourStart, MINUTE, until, writeHistory } from './rollup-feed';

describe('roll-ups across a restart', function () {
  this.timeout(60_000);
  let stack: Stack | undefined;
  after(() => stack?.stop());

  it('resumes a build the last run left unfinished, then answers from the tiers', async function () {
    // The unfinished build is arranged in openpie.db by hand; Cassandra's store is proven by the contract suites.
    if (process.env.TEST_STORE === 'cassandra') this.skip();
    const first = await startStack();
    const device = await aDevice(first);
    const base = hourStart(Date.now()) - 2 * HOUR;
    await declareRollups(first, device.projectid, [{ period: '1h', retention: 'unlimited' }]);
    await first.stop({ keepData: true });
    // As if the service had stopped after the declaration and before its build: not built, and points it never saw.
    const db = openSqliteDatabase(first.dataDir);
    const declaration = await createSqliteRollupStore(db).getRollups(device.projectid);
    await createSqliteRollupStore(db).putRollups(device.projectid, { ...declaration!, builtAt: undefined });
    db.close();

    stack = await startStack({ dataDir: first.dataDir });
    await writeHistory(stack, device, [{ ts: base + MINUTE, data: { temp: 4 } }, { ts: base + 2 * MINUTE, data: { temp: 6 } }]);
    await until(async () => (await stack!.admin('GET', `/v2/admin/projects/${device.projectid}/rollups`)).body.status === 'ready', 20_000, 'built');
    const res = await stack.http('POST', `${API}/datapoints/query`, {
      headers: { authorization: 'Bearer test-admin-token-0123456789' },
      body: { start_absolute: base, end_absolute: base + HOUR - 1, metrics: [{ name: device.deviceid, aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' } }] }] },
    });

    expect(res.headers.get('x-openpie-rollup')).to.equal('1h');
    expect(res.body.queries[0].results[0].values).to.deep.equal([[base + MINUTE, 5]]);
  });
});
