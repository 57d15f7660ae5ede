import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { validateQuery } from '../../src/timeseries/query';

/**
 * The console's pure browser modules (src/console/web), run in node: they touch the DOM only inside the functions
 * that draw. Their package.json makes them ES modules; the root tsconfig does not include them, so they are
 * imported by URL and typed here by what the tests use.
 */
const WEB = join(__dirname, '..', '..', 'src', 'console', 'web');
const load = (file: string): Promise<any> => import(pathToFileURL(join(WEB, file)).href);

type Point = [number, number];

describe('console: chart arithmetic (chart.js)', () => {
  let chart: any;
  before(async () => {
    chart = await load('chart.js');
  });

  it('picks round tick values covering the range', () => {
    expect(chart.niceTicks(0, 10)).to.deep.equal([0, 2, 4, 6, 8, 10]);
    expect(chart.niceTicks(20.3, 21.9)).to.deep.equal([20, 20.5, 21, 21.5, 22]);
    expect(chart.niceTicks(19, 26)).to.deep.equal([18, 20, 22, 24, 26]);
    expect(chart.niceTicks(5, 5)).to.deep.equal([5]);
  });

  it('draws the first point at the left, the highest at the top, the lowest at the bottom', () => {
    const points: Point[] = [[1000, 10], [2000, 20], [3000, 15]];
    const model = chart.chartModel(points, { start: 1000, end: 3000 });
    const { plot } = model;
    expect(model.count).to.equal(3);
    expect(model.min).to.equal(10);
    expect(model.max).to.equal(20);
    expect(model.dots.map((d: { x: number }) => d.x)).to.deep.equal([plot.left, (plot.left + plot.right) / 2, plot.right]);
    // The axis runs 10 to 20 (round ticks), so the lowest point is at the bottom and the highest at the top.
    expect(model.dots[0].y).to.equal(plot.bottom);
    expect(model.dots[1].y).to.equal(plot.top);
    expect(model.path).to.match(/^M\S+ \S+ L\S+ \S+ L\S+ \S+$/);
    expect(model.path.startsWith(`M${plot.left} ${plot.bottom} L`)).to.equal(true);
  });

  it('places time by the range asked for, not by the data: a point in the middle of the range is drawn there', () => {
    const model = chart.chartModel([[1500, 1]], { start: 1000, end: 2000 });
    expect(model.dots[0].x).to.equal((model.plot.left + model.plot.right) / 2);
  });

  it('puts a flat series in the middle, not on an edge', () => {
    const model = chart.chartModel([[0, 5], [10, 5]], { start: 0, end: 10 });
    expect(model.dots[0].y).to.equal((model.plot.top + model.plot.bottom) / 2);
  });

  it('draws no dots beyond 120 points, and nothing for no points', () => {
    const many: Point[] = Array.from({ length: 500 }, (_, i) => [i, Math.sin(i)]);
    const model = chart.chartModel(many, { start: 0, end: 499 });
    expect(model.dots).to.deep.equal([]);
    expect(model.path.split('L')).to.have.length(500);
    expect(chart.chartModel([], { start: 0, end: 10 })).to.include({ count: 0, path: '' });
  });

  it('puts time ticks on round clock times, local hours for steps of an hour or more', () => {
    const hour = 3_600_000;
    const { step, ticks } = chart.timeTicks(0, 24 * hour, 0);
    expect(step).to.equal(6 * hour);
    expect(ticks).to.deep.equal([0, 6 * hour, 12 * hour, 18 * hour, 24 * hour]);
    // UTC+7: local midnight is 17:00 UTC.
    const local = chart.timeTicks(0, 24 * hour, 7 * hour);
    expect(local.ticks).to.include(17 * hour);
    expect(chart.timeTicks(0, 60_000, 0).step).to.equal(15_000);
  });
});

describe('console: history queries (time-range.js)', () => {
  let range: any;
  before(async () => {
    range = await load('time-range.js');
  });

  it('opens the chart on the last 24 hours, the default docs/operations.md names', () => {
    const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
    expect(range.DEFAULT_RANGE).to.equal('24h');
    expect(range.RANGES.find((r: { id: string }) => r.id === range.DEFAULT_RANGE).label).to.equal('Last 24 hours');
    expect(docs).to.match(/opens on the last 24 hours/);
  });

  it('samples automatically into at most 200 buckets', () => {
    expect(range.autoSampling(15 * 60_000).label).to.equal('10 seconds');
    expect(range.autoSampling(3_600_000).label).to.equal('1 minute');
    expect(range.autoSampling(24 * 3_600_000).label).to.equal('15 minutes');
    expect(range.autoSampling(30 * 86_400_000).label).to.equal('6 hours');
  });

  it('resolves a preset to the span ending now, and refuses a custom range that ends before it starts', () => {
    expect(range.resolveRange('6h', 100_000_000)).to.deep.equal({ start: 100_000_000 - 6 * 3_600_000, end: 100_000_000 });
    expect(range.resolveRange('custom', 0, { start: 10, end: 20 })).to.deep.equal({ start: 10, end: 20 });
    expect(range.resolveRange('custom', 0, { start: 20, end: 10 })).to.equal(undefined);
    expect(range.resolveRange('custom', 0, { start: NaN, end: 10 })).to.equal(undefined);
  });

  it('makes queries the data-store API accepts, for every aggregator', () => {
    const now = Date.now();
    for (const aggregator of range.AGGREGATORS) {
      const query = range.historyQuery({
        deviceid: 'd1', attr: 'temp', start: now - 3_600_000, end: now, aggregator, sampling: range.autoSampling(3_600_000),
      });
      expect(() => validateQuery(query, now), aggregator).to.not.throw();
      expect(query.metrics[0].tags).to.deep.equal({ attr: ['temp'] });
      if (aggregator === 'none') expect(query.metrics[0].limit).to.equal(range.RAW_POINT_LIMIT);
      else expect(query.metrics[0].aggregators[0]).to.deep.include({ name: aggregator, sampling: { value: 1, unit: 'minutes' } });
    }
    expect(() => validateQuery(range.fieldsQuery('d1'), now)).to.not.throw();
  });
});

describe('console: event-stream parsing (event-stream.js)', () => {
  let createEventParser: (onEvent: (e: { event: string; data: string }) => void) => (chunk: string) => void;
  before(async () => {
    ({ createEventParser } = await load('event-stream.js'));
  });

  const parseAll = (chunks: string[]) => {
    const events: { event: string; data: string }[] = [];
    const parse = createEventParser((e) => events.push(e));
    for (const chunk of chunks) parse(chunk);
    return events;
  };

  it('reads events however the text is cut into chunks', () => {
    const text = 'retry: 3000\n\nid: 1\nevent: ready\ndata: {"a":1}\n\n: keep-alive\n\nid: 2\nevent: message\ndata: {"b":2}\n\n';
    const expected = [{ event: 'ready', data: '{"a":1}' }, { event: 'message', data: '{"b":2}' }];
    expect(parseAll([text])).to.deep.equal(expected);
    expect(parseAll(text.split(''))).to.deep.equal(expected);
    expect(parseAll([text.slice(0, 30), text.slice(30, 31), text.slice(31)])).to.deep.equal(expected);
  });

  it('joins data lines, reads CRLF, names events without a name "message", and waits for the blank line', () => {
    expect(parseAll(['data: one\r\ndata:two\r\n\r\n', 'event: late\ndata: x\n'])).to.deep.equal([{ event: 'message', data: 'one\ntwo' }]);
  });
});

describe('console: browser modules type-check (tsc, JSDoc types)', () => {
  it('src/console/web has no type errors', async function () {
    this.timeout(60_000);
    const tsc = join(__dirname, '..', '..', 'node_modules', '.bin', 'tsc');
    const run = promisify(execFile);
    const result = await run(tsc, ['-p', join(WEB, 'tsconfig.json')]).then(
      () => '',
      (err: { stdout?: string; message: string }) => err.stdout || err.message,
    );
    expect(result).to.equal('');
  });
});
