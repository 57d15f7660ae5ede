import { expect } from 'chai';
import { KairosDbTimeSeries } from '../../../src/adapters/kairosdb/kairosdb-timeseries';
import { AppError } from '../../../src/core/errors';
import { Point } from '../../../src/timeseries/point';
import { TimeSeriesQueries } from '../../../src/timeseries/port';
import { executeQuery, executeTagsQuery, QueryResponse, validateQuery } from '../../../src/timeseries/query';
import { noScripts } from '../../helpers/kairos-query';
import {
  deleteMetrics, kairosDbAdapter, kairosDbRequest, kairosDbUrlOrSkip, uniqueMetric, waitForStored,
} from '../../helpers/kairosdb';
import { MemorySeriesSource } from '../../helpers/memory-series-source';

const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 0, 10);

/**
 * Where the real KairosDB 1.2.1 and the embedded engine part ways, each kept as KairosDB's reason says and listed in
 * the docs/data-store.md ("Production backends: KairosDB"). Each test shows the difference and what the service does about it.
 */
describe('KairosDB 1.2.1 and the embedded engine: the documented differences', function () {
  this.timeout(60_000);
  let url: string;
  let kairos: { backend: KairosDbTimeSeries; queries: TimeSeriesQueries };
  const metric = uniqueMetric('known');
  const future = uniqueMetric('known.future');
  const embedded = new MemorySeriesSource();
  const points: Point[] = [
    ...[0, 1, 2, 3, 4, 5].map((i) => ({ metric, tags: { host: 'a' }, timestamp: T0 + i * HOUR, value: i * 1.5 })),
    // Outside every range below, but in the same 3-week Cassandra row as the others.
    { metric, tags: { host: 'old' }, timestamp: T0 - 2 * 24 * HOUR, value: 7 },
    { metric, tags: { host: 'big' }, timestamp: T0 + 30 * HOUR, value: 3e9 },
  ];
  const range = { start_absolute: T0, end_absolute: T0 + 6 * HOUR };

  before(async function () {
    url = await kairosDbUrlOrSkip(this);
    kairos = kairosDbAdapter(url, { sandbox: noScripts });
    await kairos.backend.writer.writePoints(points);
    await embedded.writePoints(points);
    await waitForStored(url, [metric], [points.length]);
  });
  after(async () => {
    if (url === undefined) return;
    await deleteMetrics(url, [metric, future, `${metric}.saved`]);
    kairos.backend.close();
  });

  const both = async (body: Record<string, unknown>) => {
    const query = validateQuery(body, Date.now());
    return {
      engine: await executeQuery(query, { source: embedded, writer: embedded, sandbox: noScripts }),
      kairos: await kairos.queries.query(query, body).catch((err: unknown) => err),
    };
  };

  it('NaN or infinite results: the engine prints null (fork >= 1.2.25), KairosDB 1.2.1 fails: 500 BACKEND_ERROR', async () => {
    // gaps leaves null points in empty buckets; avg over a bucket with no number is NaN (reference §6.2).
    const { engine, kairos: answer } = await both({
      ...range,
      metrics: [{ name: metric, tags: { host: 'a' }, aggregators: [{ name: 'gaps', sampling: { value: 30, unit: 'minutes' } }, { name: 'avg', sampling: { value: 30, unit: 'minutes' } }] }],
    });

    expect(engine.queries[0].results[0].values.slice(0, 3)).to.deep.equal([[T0, 0], [T0 + HOUR / 2, null], [T0 + HOUR, 1.5]]);
    expect(answer).to.be.instanceOf(AppError);
    expect((answer as AppError).status).to.equal(500);
    expect((answer as AppError).code).to.equal('BACKEND_ERROR');
    expect((answer as AppError).message).to.contain('NaN or infinite');
  });

  it('per-metric start_absolute/end_absolute: KairosDB 1.2.1 ignores them; the adapter sends one request per range', async () => {
    const body = { start_absolute: T0, end_absolute: T0 + 6 * HOUR, metrics: [{ name: metric, tags: { host: 'a' }, start_absolute: T0 + 2 * HOUR, end_absolute: T0 + 3 * HOUR }] };

    const raw = await kairosDbRequest(url, 'POST', '/datapoints/query', body);
    const { engine, kairos: answer } = await both(body);

    expect(raw.body.queries[0].sample_size, 'KairosDB itself').to.equal(6);
    expect(engine.queries[0].results[0].values).to.deep.equal([[T0 + 2 * HOUR, 3], [T0 + 3 * HOUR, 4.5]]);
    expect((answer as QueryResponse).queries[0].results[0].values).to.deep.equal(engine.queries[0].results[0].values);
  });

  it('no end: KairosDB returns future points; the adapter sends end = now, as the engine ends there', async () => {
    const later = Date.now() + HOUR;
    await kairos.backend.writer.writePoints([{ metric: future, tags: { host: 'a' }, timestamp: later, value: 1 }]);
    await waitForStored(url, [future], [1]);
    const body = { start_relative: { value: 1, unit: 'days' }, metrics: [{ name: future }] };

    const raw = await kairosDbRequest(url, 'POST', '/datapoints/query', body);
    const answer = await kairos.queries.query(validateQuery(body, Date.now()), body);

    expect(raw.body.queries[0].results[0].values, 'KairosDB itself').to.deep.equal([[later, 1]]);
    expect(answer.queries[0].results[0].values).to.deep.equal([]);
  });

  it('tags query: KairosDB reads Cassandra row keys, so it names series with no point in the range', async () => {
    const body = { ...range, metrics: [{ name: metric }] };
    const query = validateQuery(body, Date.now());

    const fromEngine = await executeTagsQuery(query, embedded);
    const fromKairos = await kairos.queries.queryTags(query, body);

    expect(fromEngine.queries[0].results[0].tags).to.deep.equal({ host: ['a'] });
    expect(fromKairos.queries[0].results[0].tags.host).to.include.members(['a', 'old']);
  });

  it('value grouper over integers beyond 32 bits: stored as doubles in KairosDB, they take its double path', async () => {
    const { engine, kairos: answer } = await both({
      start_absolute: T0, end_absolute: T0 + 31 * HOUR,
      metrics: [{ name: metric, tags: { host: 'big' }, group_by: [{ name: 'value', range_size: 1000 }] }],
    });

    // Long path: (int) (3e9 / 1000); double path: (int) 3e9 saturates to 2^31 - 1, then / 1000.
    expect(engine.queries[0].results[0].group_by?.[0]).to.deep.include({ group: { group_number: 3_000_000 } });
    expect((answer as QueryResponse).queries[0].results[0].group_by?.[0]).to.deep.include({ group: { group_number: 2_147_483 } });
  });

  it('dev with a return_type other than value, pos_sd or neg_sd: 1.2.1 fails (500), the engine returns the deviation, the adapter leaves it out', async () => {
    const body = { ...range, metrics: [{ name: metric, tags: { host: 'a' }, aggregators: [{ name: 'dev', return_type: 'POS_SD', sampling: { value: 1, unit: 'days' } }] }] };

    const raw = await kairosDbRequest(url, 'POST', '/datapoints/query', body);
    const { engine, kairos: answer } = await both(body);

    expect(raw.status, 'KairosDB itself').to.equal(500);
    expect(raw.body.errors).to.deep.equal(['cannot validate null']);
    expect((answer as QueryResponse).queries[0].results[0].values).to.deep.equal(engine.queries[0].results[0].values);
  });

  it('filter without filter_op: 1.2.1 drops no point (the fork fails with 500); the engine refuses it with 400', async () => {
    const body = { ...range, metrics: [{ name: metric, tags: { host: 'a' }, aggregators: [{ name: 'filter', threshold: 3 }] }] };

    const raw = await kairosDbRequest(url, 'POST', '/datapoints/query', body);

    expect(raw.status, 'KairosDB itself').to.equal(200);
    expect(raw.body.queries[0].results[0].values).to.have.length(6);
    expect(() => validateQuery(body, Date.now())).to.throw('query.metric[0].aggregators[0].filter_op may not be null');
  });

  it('a fractional start_absolute number: KairosDB reads it as a long, the engine refuses it with 400', async () => {
    const body = { start_absolute: T0 + 0.5, end_absolute: T0 + 6 * HOUR, metrics: [{ name: metric, tags: { host: 'a' } }] };

    const raw = await kairosDbRequest(url, 'POST', '/datapoints/query', body);

    expect(raw.status, 'KairosDB itself').to.equal(200);
    expect(() => validateQuery(body, Date.now())).to.throw(`query.start_absolute For input string: "${T0 + 0.5}"`);
  });

  it('save_as tags that repeat a tag grouper\'s tag: KairosDB fails (500) once a group has data, the engine refuses (400) before running', async () => {
    const body = {
      ...range,
      metrics: [{ name: metric, group_by: [{ name: 'tag', tags: ['host'] }], aggregators: [{ name: 'save_as', metric_name: `${metric}.saved`, tags: { host: 'x' } }] }],
    };

    const raw = await kairosDbRequest(url, 'POST', '/datapoints/query', body);

    expect(raw.status, 'KairosDB itself').to.equal(500);
    expect(raw.body.errors[0]).to.match(/^Multiple entries with same key: host=/);
    expect(() => validateQuery(body, Date.now())).to.throw(/tags\.host repeats a tag of the tag group_by/);
  });

  it('bodies KairosDB answers with 500 that depend only on the query: the engine answers 400', async () => {
    const bad = [
      [],
      { ...range, metrics: [{ name: metric, aggregators: [{ name: 'sma', size: 0 }] }] },
      { ...range, metrics: [{ name: metric, group_by: [{ name: 'bin' }] }] },
      { ...range, metrics: [{ name: metric, limit: '10.5' }] },
    ];
    for (const body of bad) {
      const raw = await kairosDbRequest(url, 'POST', '/datapoints/query', body);
      expect(raw.status, `KairosDB: ${JSON.stringify(body)}`).to.equal(500);
      expect(() => validateQuery(body, Date.now()), JSON.stringify(body)).to.throw(AppError).with.property('status', 400);
    }
    const emptyGet = await fetch(`${url}/api/v1/datapoints/query?query=`);
    expect(emptyGet.status, 'KairosDB: GET with an empty query').to.equal(500);
  });

  it('zone rules newer than Joda-Time 2.3\'s 2013 database: Europe/Istanbul has kept UTC+3 since 2016, KairosDB still says +2 in winter', async () => {
    const body = {
      start_absolute: T0 - 24 * HOUR, end_absolute: T0 + 24 * HOUR, time_zone: 'Europe/Istanbul',
      metrics: [{ name: metric, tags: { host: 'a' }, aggregators: [{ name: 'count', sampling: { value: 1, unit: 'days' }, align_sampling: true, align_start_time: true }] }],
    };

    const { engine, kairos: answer } = await both(body);

    // Midnight in Istanbul: 21:00 UTC today, 22:00 UTC by the 2013 rules.
    expect(engine.queries[0].results[0].values).to.deep.equal([[T0 - 3 * HOUR, 6]]);
    expect((answer as QueryResponse).queries[0].results[0].values).to.deep.equal([[T0 - 2 * HOUR, 6]]);
  });
});
