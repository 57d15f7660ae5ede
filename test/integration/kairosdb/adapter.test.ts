import { expect } from 'chai';
import { createServer, Server, Socket } from 'node:net';
import { KairosDbTimeSeries } from '../../../src/adapters/kairosdb/kairosdb-timeseries';
import { AppError } from '../../../src/core/errors';
import { Point } from '../../../src/timeseries/point';
import { TimeSeriesQueries } from '../../../src/timeseries/port';
import { executeQuery, KairosQueryError, materializeAnswer, QueryResponse, validateQuery } from '../../../src/timeseries/query';
import { createQuickJsSandbox, QuickJsSandbox } from '../../../src/timeseries/sandbox/quickjs-sandbox';
import { expectSameOutcome, outcomeOf } from '../../helpers/differential';
import {
  closedPort, deleteMetrics, kairosDbAdapter, kairosDbUrlOrSkip, pollUntil, uniqueMetric, waitForStored,
} from '../../helpers/kairosdb';
import { noScripts } from '../../helpers/kairos-query';
import { MemorySeriesSource } from '../../helpers/memory-series-source';

const T0 = Date.UTC(2024, 5, 1);
const MINUTE = 60_000;

/** Thrown error of a promise that must fail. */
async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    return err as AppError;
  }
  expect.fail('expected a failure');
}

describe('KairosDB adapter against the real KairosDB', function () {
  this.timeout(60_000);
  let url: string;
  let sandbox: QuickJsSandbox;
  let kairos: { backend: KairosDbTimeSeries; queries: TimeSeriesQueries };
  const metric = uniqueMetric('adapter');
  const overwrite = uniqueMetric('adapter.overwrite');
  const large = uniqueMetric('adapter.large');
  const points: Point[] = [];
  for (let i = 0; i < 120; i++) {
    points.push({ metric, tags: { attr: 'temp' }, timestamp: T0 + i * MINUTE, value: 20 + (i % 13) / 4 });
    if (i % 3 === 0) points.push({ metric, tags: { attr: 'humid' }, timestamp: T0 + i * MINUTE, value: 40 + (i % 7) });
  }
  const embedded = new MemorySeriesSource();

  before(async function () {
    url = await kairosDbUrlOrSkip(this);
    sandbox = createQuickJsSandbox();
    kairos = kairosDbAdapter(url, { sandbox });
    await kairos.backend.writer.writePoints(points);
    await embedded.writePoints(points);
    await waitForStored(url, [metric], [points.length]);
  });

  after(async () => {
    if (url === undefined) return;
    await deleteMetrics(url, [metric, overwrite, large]);
    kairos.backend.close();
    await sandbox.close();
  });

  const range = { start_absolute: T0, end_absolute: T0 + 120 * MINUTE };
  const run = (body: Record<string, unknown>): Promise<QueryResponse> => kairos.queries.query(validateQuery(body, Date.now()), body).then(materializeAnswer);

  describe('writes (gzip POST /api/v1/datapoints)', () => {
    it('reads back every point written, per series, values exact', async () => {
      const res = await run({ ...range, metrics: [{ name: metric, group_by: [{ name: 'tag', tags: ['attr'] }] }] });

      const byAttr = Object.fromEntries(res.queries[0].results.map((r) => [r.tags?.attr[0], r.values]));
      expect(byAttr.temp).to.deep.equal(points.filter((p) => p.tags.attr === 'temp').map((p) => [p.timestamp, p.value]));
      expect(byAttr.humid).to.deep.equal(points.filter((p) => p.tags.attr === 'humid').map((p) => [p.timestamp, p.value]));
    });

    it('keeps the last value of a point written twice, even when an integer becomes a fraction', async () => {
      const at = T0 + 5 * MINUTE;
      await kairos.backend.writer.writePoints([
        { metric: overwrite, tags: { attr: 'x' }, timestamp: at, value: 1 },
        { metric: overwrite, tags: { attr: 'x' }, timestamp: at, value: 20 },
      ]);
      await waitForStored(url, [overwrite], [1]);
      await kairos.backend.writer.writePoints([{ metric: overwrite, tags: { attr: 'x' }, timestamp: at, value: 20.5 }]);

      const read = () => run({ start_absolute: at, end_absolute: at + 1, metrics: [{ name: overwrite }] });
      const res = await pollUntil(read, (r) => r.queries[0].results[0].values[0]?.[1] === 20.5);
      expect(res.queries[0].results[0].values).to.deep.equal([[at, 20.5]]);
      expect(res.queries[0].sample_size).to.equal(1);
    });
  });

  describe('a write of many points (sent as several POSTs)', () => {
    it('stores every point once, a series split between POSTs included, the last of a repeated timestamp winning', async () => {
      // 30,001 points: more than several POSTs hold, one series far longer than one POST, and one repeat.
      const many: Point[] = [];
      for (let i = 0; i < 24_000; i++) many.push({ metric: large, tags: { attr: 'long' }, timestamp: T0 + i * 1000, value: i });
      for (let i = 0; i < 6_000; i++) many.push({ metric: large, tags: { attr: 'short' }, timestamp: T0 + i * 1000, value: -i });
      many.push({ metric: large, tags: { attr: 'long' }, timestamp: T0, value: 0.5 });

      await kairos.backend.writer.writePoints(many);
      await waitForStored(url, [large], [30_000]);

      const res = await run({
        start_absolute: T0,
        end_absolute: T0 + 24_000 * 1000,
        metrics: [{ name: large, group_by: [{ name: 'tag', tags: ['attr'] }], aggregators: [{ name: 'count', sampling: { value: 1, unit: 'years' } }] }],
      });
      const counts = Object.fromEntries(res.queries[0].results.map((r) => [r.tags?.attr[0], r.values[0][1]]));
      expect(counts).to.deep.equal({ long: 24_000, short: 6_000 });
      const first = await run({ start_absolute: T0, end_absolute: T0 + 1, metrics: [{ name: large, tags: { attr: ['long'] } }] });
      expect(first.queries[0].results[0].values).to.deep.equal([[T0, 0.5]]);
    });
  });

  describe('queries', () => {
    it('leaves keys_scanned out: upstream KairosDB 1.2.1 does not send it', async () => {
      const res = await run({ ...range, metrics: [{ name: metric }] });
      expect(res.queries[0]).to.have.keys('sample_size', 'results');
      expect(res.queries[0].sample_size).to.equal(points.length);
    });

    it("passes KairosDB's 400 through with its messages, as KairosQueryError", async () => {
      // A zone newer than the tz database of KairosDB 1.2.1's Joda-Time 2.3 (2013), which Node's ICU knows.
      const err = await failureOf(run({ ...range, time_zone: 'America/Ciudad_Juarez', metrics: [{ name: metric }] }));

      expect(err).to.be.instanceOf(KairosQueryError);
      expect(err.status).to.equal(400);
      expect((err as KairosQueryError).errors[0]).to.match(/^query\.America\/Ciudad_Juarez is not a valid time zone, must be one of \[/);
    });

    it('answers a KairosDB 500 that only depends on the query with a 400, as the embedded engine does', async () => {
      const body = { ...range, metrics: [{ name: metric, aggregators: [{ name: 'rate', unit: 'minutes' }] }] };
      const err = await failureOf(run(body));

      expect(err).to.be.instanceOf(KairosQueryError);
      expect((err as KairosQueryError).errors).to.deep.equal([
        'The rate aggregator cannot compute rate for data points with the same time stamp.  You must precede rate with another aggregator.',
      ]);
    });

    it('lists metric names and the tags of a metric', async () => {
      expect(await kairos.queries.metricNames(metric)).to.deep.equal([metric]);
      expect(await kairos.queries.tagsOf(metric)).to.deep.equal({ attr: ['humid', 'temp'] });
      const tags = await kairos.queries.queryTags(validateQuery({ ...range, metrics: [{ name: metric, aggregators: [{ name: 'histogram', percentile: 0.5 }] }] }, Date.now()),
        { ...range, metrics: [{ name: metric, aggregators: [{ name: 'histogram', percentile: 0.5 }] }] });
      expect(tags).to.deep.equal({ queries: [{ results: [{ name: metric, tags: { attr: ['humid', 'temp'] }, values: [] }] }] });
    });
  });

  describe('aggregators KairosDB lacks run in the engine over what KairosDB returns', () => {
    const cases: [string, Record<string, unknown>[], Record<string, unknown>?][] = [
      ['histogram (percentile by its old name)', [{ name: 'histogram', percentile: 0.9, sampling: { value: 30, unit: 'minutes' } }]],
      ['sum, then histogram', [{ name: 'sum', sampling: { value: 10, unit: 'minutes' } }, { name: 'histogram', percentile: 0.5, sampling: { value: 1, unit: 'hours' } }]],
      ['js_function after avg', [{ name: 'avg', sampling: { value: 15, unit: 'minutes' } }, { name: 'js_function', script: 'value * 3 + timestamp % 7' }]],
      ['js_filter, then max (run here too: it comes after)', [{ name: 'js_filter', script: 'value > 21' }, { name: 'max', sampling: { value: 20, unit: 'minutes' } }]],
      ['js_range', [{ name: 'js_range', sampling: { value: 30, unit: 'minutes' }, script: 'var s = 0; for (var i = 0; i < values.length; i++) s += values[i]; return s / 2;' }]],
      ['js_range with array_result', [{ name: 'js_range', sampling: { value: 1, unit: 'hours' }, array_result: true, script: 'return [values.length, values[0]];' }]],
      ['scale, js_function, save-free chain with trim', [{ name: 'scale', factor: 2 }, { name: 'js_function', script: 'value - 1' }, { name: 'trim', trim: 'both' }]],
      ['gaps, then js_function (refused alike)', [{ name: 'gaps', sampling: { value: 1, unit: 'minutes' } }, { name: 'js_function', script: 'value' }]],
      ['grouped by tag, exclude_tags', [{ name: 'count', sampling: { value: 1, unit: 'hours' } }, { name: 'js_function', script: 'value + 1' }],
        { group_by: [{ name: 'tag', tags: ['attr'] }], exclude_tags: true }],
    ];
    for (const [label, aggregators, extra] of cases) {
      it(label, async () => {
        const body = { ...range, metrics: [{ name: metric, aggregators, ...extra }] };
        const query = validateQuery(body, Date.now());

        const fromEngine = await outcomeOf(() => executeQuery(query, { source: embedded, writer: embedded, sandbox }));
        const fromKairos = await outcomeOf(() => kairos.queries.query(query, body).then(materializeAnswer));

        expectSameOutcome(fromEngine, fromKairos, label);
      });
    }
  });
});

describe('KairosDB adapter when KairosDB cannot answer', () => {
  let stalled: Server;
  const held: Socket[] = [];

  before(async () => {
    // A server that accepts connections and never answers: the fault a hung KairosDB would cause.
    stalled = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => stalled.close(() => resolve()));
  });

  const body = { start_absolute: 0, metrics: [{ name: 'm' }] };

  it('answers 503 BACKEND_UNAVAILABLE, "connection refused", when nothing listens', async () => {
    const { backend, queries } = kairosDbAdapter(`http://127.0.0.1:${await closedPort()}`, { sandbox: noScripts });
    try {
      const err = await failureOf(queries.query(validateQuery(body, Date.now()), body));
      expect(err.status).to.equal(503);
      expect(err.code).to.equal('BACKEND_UNAVAILABLE');
      expect(err.message).to.equal('the time-series backend (KairosDB) is unavailable: connection refused; try again later');
      expect((await failureOf(queries.metricNames())).code).to.equal('BACKEND_UNAVAILABLE');
      // The relay keeps points whose write fails, and retries.
      expect((await failureOf(backend.writer.writePoints([{ metric: 'm', tags: { a: 'b' }, timestamp: 1, value: 1 }]))).code).to.equal('BACKEND_UNAVAILABLE');
      expect((await failureOf(backend.readiness.check())).code).to.equal('BACKEND_UNAVAILABLE');
    } finally {
      backend.close();
    }
  });

  it('answers 503 "no answer within" the timeout when KairosDB hangs', async () => {
    const address = stalled.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const { backend, queries } = kairosDbAdapter(`http://127.0.0.1:${port}`, { sandbox: noScripts }, 300);
    try {
      const started = Date.now();
      const err = await failureOf(queries.query(validateQuery(body, Date.now()), body));
      expect(err.code).to.equal('BACKEND_UNAVAILABLE');
      expect(err.message).to.contain('no answer within 300 ms');
      expect(Date.now() - started).to.be.below(3_000);
    } finally {
      backend.close();
    }
  });
});
