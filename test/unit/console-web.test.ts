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

  it('breaks the line where two points are more than 3 usual steps apart, and nowhere else', () => {
    const points: Point[] = [[0, 1], [1000, 2], [2000, 3], [3000, 4], [10_000, 5], [11_000, 6], [12_500, 7]];
    expect(chart.usualStep(points)).to.equal(1000);
    expect(chart.withGaps(points)).to.deep.equal({
      points: [[0, 1], [1000, 2], [2000, 3], [3000, 4], [4000, null], [10_000, 5], [11_000, 6], [12_500, 7]],
      gaps: 1,
    });
  });

  it('tells no gap with fewer than three points: too few to know the usual step', () => {
    expect(chart.withGaps([[0, 1], [100_000, 2]])).to.deep.equal({ points: [[0, 1], [100_000, 2]], gaps: 0 });
    expect(chart.withGaps([])).to.deep.equal({ points: [], gaps: 0 });
  });

  it('aligns several series on the union of their times: undefined where a series has no point, null in a gap', () => {
    const aligned = chart.alignSeries([
      { points: [[1, 10], [3, 30]] },
      { points: [[2, 20], [3, null], [4, 40]] },
    ]);
    expect(aligned).to.deep.equal([[1, 2, 3, 4], [10, undefined, 30, undefined], [undefined, 20, null, 40]]);
  });

  it('summarizes a series for the caption: count, gaps, lowest, highest, last', () => {
    const points: Point[] = [[0, 5], [1, 2], [2, 9], [3, 4], [60, 7]];
    expect(chart.summarize({ field: 't', points })).to.deep.equal({ field: 't', count: 5, gaps: 1, min: 2, max: 9, last: 7 });
    expect(chart.summarize({ field: 't', points: [] })).to.deep.include({ count: 0, gaps: 0, min: undefined });
  });
});

describe('console: latest values (latest-values.js)', () => {
  it('names nested members by their dotted path, as the data store names fields; arrays stay values', async () => {
    const { flattenFields } = await load('latest-values.js');
    expect(flattenFields({ temp: 21, env: { lux: 3, pos: { x: 1 } }, tags: ['a'], on: null }))
      .to.deep.equal([['temp', 21], ['env.lux', 3], ['env.pos.x', 1], ['tags', ['a']], ['on', null]]);
  });
});

describe('console: MQTT client messages (mqtt-message.js)', () => {
  let m: any;
  before(async () => {
    m = await load('mqtt-message.js');
  });
  const form = { qos: 1, retain: false, contentType: '', responseTopic: '', correlationData: '', expirySeconds: '', userProperties: '' };

  it('reads user properties one name=value a line, a repeated name as a list in order (MQTT 5 §3.3.2.3.7)', () => {
    expect(m.parseUserProperties('a=1\n\n b = 2 \na=x=y')).to.deep.equal({ properties: { a: ['1', 'x=y'], b: '2' } });
    expect(m.parseUserProperties('just text')).to.deep.equal({ error: '"just text" is not name=value' });
    expect(m.parseUserProperties('=v')).to.have.property('error');
  });

  it('sends MQTT 5 properties only when filled in, and none over MQTT 3.1.1', () => {
    expect(m.publishOptions(form, 5)).to.deep.equal({ options: { qos: 1, retain: false } });
    const full = m.publishOptions({ ...form, contentType: 'text/plain', responseTopic: '@msg/r', correlationData: 'id', expirySeconds: '60', userProperties: 'k=v' }, 5);
    expect(full.options.properties).to.deep.include({ contentType: 'text/plain', responseTopic: '@msg/r', messageExpiryInterval: 60, userProperties: { k: 'v' } });
    expect([...full.options.properties.correlationData]).to.deep.equal([0x69, 0x64]);
    expect(m.publishOptions({ ...form, contentType: 'text/plain' }, 4)).to.deep.equal({ options: { qos: 1, retain: false } });
    expect(m.publishOptions({ ...form, expirySeconds: '4294967296' }, 5)).to.have.property('error');
    expect(m.publishOptions({ ...form, expirySeconds: '-1' }, 5)).to.have.property('error');
  });

  it('shows a UTF-8 payload as text, any other as hexadecimal, cut at 4096 bytes', () => {
    expect(m.describePayload(new TextEncoder().encode('héllo'))).to.deep.equal({ text: 'héllo', encoding: 'utf8', bytes: 6, truncated: false });
    expect(m.describePayload(new Uint8Array([0xff, 0x00, 0x10]))).to.deep.include({ text: 'ff 00 10', encoding: 'hex' });
    const long = m.describePayload(new Uint8Array(5000).fill(0x61));
    expect(long).to.deep.include({ bytes: 5000, truncated: true });
    expect(long.text).to.have.length(m.PREVIEW_BYTES);
  });
});

describe('console: history queries (time-range.js)', () => {
  let range: any;
  before(async () => {
    range = await load('time-range.js');
  });

  it('opens the chart on a range fitted to the data, the default docs/operations.md names', () => {
    const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
    expect(range.DEFAULT_RANGE).to.equal('fit');
    expect(docs).to.match(/opens on a range fitted to the\s+points/);
  });

  it('fits the range to a device that streamed a minute: that minute to now, following new points', () => {
    const now = 10_000_000;
    const fitted = range.fitRange({ first: now - 61_000, last: now - 1000 }, now);
    expect(fitted.live).to.equal(true);
    expect(fitted.end).to.equal(now);
    // A margin of 5% before the first point, so it does not sit on the edge.
    expect(fitted.start).to.equal(now - 61_000 - 3050);
  });

  it('fits the range to the points of a device that stopped writing long ago, not to now', () => {
    const day = 86_400_000;
    const now = 100 * day;
    const fitted = range.fitRange({ first: now - 10 * day, last: now - 10 * day + 60_000 }, now);
    expect(fitted).to.deep.include({ live: false });
    expect(fitted.start).to.be.below(now - 10 * day);
    expect(fitted.end).to.be.within(now - 10 * day + 60_000, now - 10 * day + 70_000);
    // A single point gets a minute around it; years of points only their last 30 days; no points the last hour.
    const single = range.fitRange({ first: now - 1000, last: now - 1000 }, now);
    expect(single.end - single.start).to.be.at.least(range.FIT_MIN_SPAN_MS);
    const years = range.fitRange({ first: 0, last: now }, now);
    expect(years.start).to.be.at.least(now - range.FIT_MAX_SPAN_MS - 0.05 * range.FIT_MAX_SPAN_MS);
    expect(range.fitRange(undefined, now)).to.deep.equal({ start: now - 3_600_000, end: now, live: true });
  });

  it('samples automatically into at most 200 buckets', () => {
    expect(range.autoSampling(15 * 60_000).label).to.equal('10 seconds');
    expect(range.autoSampling(3_600_000).label).to.equal('1 minute');
    expect(range.autoSampling(24 * 3_600_000).label).to.equal('15 minutes');
    expect(range.autoSampling(30 * 86_400_000).label).to.equal('6 hours');
  });

  it('resolves a preset to the span ending now, and refuses a custom range that ends before it starts', () => {
    expect(range.resolveRange('6h', 100_000_000)).to.deep.equal({ start: 100_000_000 - 6 * 3_600_000, end: 100_000_000, live: true });
    expect(range.resolveRange('custom', 0, { custom: { start: 10, end: 20 } })).to.deep.equal({ start: 10, end: 20, live: false });
    expect(range.resolveRange('custom', 0, { custom: { start: 20, end: 10 } })).to.equal(undefined);
    expect(range.resolveRange('custom', 0, { custom: { start: NaN, end: 10 } })).to.equal(undefined);
  });

  it('makes queries the data-store API accepts, for every aggregator', () => {
    const now = Date.now();
    for (const aggregator of range.AGGREGATORS) {
      const query = range.historyQuery({
        deviceid: 'd1', fields: ['temp', 'hum'], start: now - 3_600_000, end: now, aggregator, sampling: range.autoSampling(3_600_000),
      });
      expect(() => validateQuery(query, now), aggregator).to.not.throw();
      expect(query.metrics[0].tags).to.deep.equal({ attr: ['temp', 'hum'] });
      expect(query.metrics[0].group_by).to.deep.equal([{ name: 'tag', tags: ['attr'] }]);
      if (aggregator === 'none') expect(query.metrics[0].limit).to.equal(range.RAW_POINT_LIMIT);
      else expect(query.metrics[0].aggregators[0]).to.deep.include({ name: aggregator, sampling: { value: 1, unit: 'minutes' } });
    }
    expect(() => validateQuery(range.fieldsQuery('d1'), now)).to.not.throw();
    expect(() => validateQuery(range.extentQuery('d1'), now)).to.not.throw();
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
