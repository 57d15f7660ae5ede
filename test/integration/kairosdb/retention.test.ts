import { expect } from 'chai';
import { Point } from '../../../src/timeseries/point';
import { noScripts } from '../../helpers/kairos-query';
import { deleteMetrics, kairosDbAdapter, kairosDbUrlOrSkip, pollUntil, storedCounts, uniqueMetric, waitForStored } from '../../helpers/kairosdb';

/**
 * Retention on KairosDB (issue 23 §2): each point goes with the seconds it has left as its `ttl`, which KairosDB 1.2.1
 * hands to Cassandra, and Cassandra stops answering the cell once it is over; a point already expired is not written.
 */
describe('KairosDB: retention of points (issue 23 §2)', function () {
  this.timeout(60_000);
  let url: string;
  let kairos: ReturnType<typeof kairosDbAdapter>;
  const short = uniqueMetric('retention.short');
  const backfilled = uniqueMetric('retention.backfilled');

  before(async function () {
    url = await kairosDbUrlOrSkip(this);
    kairos = kairosDbAdapter(url, { sandbox: noScripts });
  });
  after(async () => {
    if (url === undefined) return;
    await deleteMetrics(url, [short, backfilled]);
    kairos.backend.close();
  });

  it('drops a point with a short ttl from answers once it is over, keeping the series\' points without one', async () => {
    const now = Date.now();
    const expiresAt = now + 4000;
    const points: Point[] = [
      { metric: short, tags: { attr: 'temp' }, timestamp: now - 60_000, value: 1, expiresAt },
      { metric: short, tags: { attr: 'temp' }, timestamp: now - 30_000, value: 2 },
    ];

    await kairos.backend.writer.writePoints(points);
    await waitForStored(url, [short], [2]);

    const counts = await pollUntil(() => storedCounts(url, [short]), ([count]) => count === 1, 15_000);
    const goneAt = Date.now();

    expect(counts).to.deep.equal([1]);
    // Cassandra counts the ttl in whole seconds from the second KairosDB wrote the point (a little after our write,
    // with the ttl rounded up): the point leaves within about a second of its expiry (docs/data-store.md "Retention").
    expect(goneAt).to.be.within(expiresAt - 1000, expiresAt + 3000);
    expect(await kairos.queries.metricNames(short)).to.deep.equal([short]);
  });

  it('does not write a back-filled point that has already expired', async () => {
    const now = Date.now();

    await kairos.backend.writer.writePoints([
      { metric: backfilled, tags: { attr: 'temp' }, timestamp: now - 10 * 86_400_000, value: 1, expiresAt: now - 86_400_000 },
      { metric: backfilled, tags: { attr: 'temp' }, timestamp: now - 1000, value: 2, expiresAt: now + 3_600_000 },
    ]);

    await waitForStored(url, [backfilled], [1]);
    // Given time to show up, the expired one never does.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await storedCounts(url, [backfilled])).to.deep.equal([1]);
  });
});
