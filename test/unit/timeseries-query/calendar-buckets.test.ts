import { expect } from 'chai';
import { addUnits, samplingLengthMs, unitsBetween } from '../../../src/timeseries/query/calendar';
import { zoneFor } from '../../../src/timeseries/query/time-zone';
import { aggregate } from '../../helpers/aggregate-points';
import { everyStep } from '../../helpers/kairos-query';

/** Calendar bucketing of range aggregators (reference §6.1; RangeAggregatorTest, SamplingTest). */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const utc = Date.UTC;
/** Epoch ms of a Paris wall-clock time (CET +1 in winter, CEST +2 in summer; the test dates avoid the switch). */
const paris = (y: number, mo: number, d: number, h = 0, offsetHours = 1) => utc(y, mo, d, h) - offsetHours * HOUR;

/** One point of value 1 per calendar month, from the first month through the last (both included). */
function monthly(fromYear: number, fromMonth: number, count: number): [number, number][] {
  return Array.from({ length: count }, (_, i): [number, number] => [utc(fromYear, fromMonth + i, 1), 1]);
}

describe('calendar buckets (reference §6.1)', () => {
  it('years: 12 months in 2014, then 6 in 2015', async () => {
    const points = monthly(2014, 0, 18);
    expect(await aggregate(points, [{ name: 'sum', sampling: { value: 1, unit: 'years' } }], { start: utc(2014, 0, 1) }))
      .to.deep.equal([[utc(2014, 0, 1), 12], [utc(2015, 0, 1), 6]]);
  });

  it('years over leap years count 365, 365, 366, 365 days', async () => {
    const points = everyStep(utc(2010, 0, 1), utc(2014, 0, 1), DAY, 1);
    const result = await aggregate(points, [{ name: 'count', sampling: { value: 1, unit: 'years' } }], { start: utc(2010, 0, 1) });
    expect(result.map(([, v]) => v)).to.deep.equal([365, 365, 366, 365]);
  });

  describe('3-month buckets from Jan 1 01:01 UTC, one point a day until Jul 10', () => {
    const start = utc(2014, 0, 1, 1, 1);
    const points = everyStep(start, utc(2014, 6, 10, 1, 1), DAY, 1);
    const sum = (options: Record<string, unknown>) =>
      aggregate(points, [{ name: 'sum', sampling: { value: 3, unit: 'months' }, ...options }], { start, timeZone: 'UTC' });

    it('without alignment: 90, 91 and 9 days, stamped with each first point', async () => {
      expect(await sum({})).to.deep.equal([[start, 90], [utc(2014, 3, 1, 1, 1), 91], [utc(2014, 6, 1, 1, 1), 9]]);
    });

    it('aligned to the start: Jan 1, Apr 1, Jul 1 at midnight', async () => {
      expect((await sum({ align_sampling: true, align_start_time: true })).map(([t]) => t))
        .to.deep.equal([utc(2014, 0, 1), utc(2014, 3, 1), utc(2014, 6, 1)]);
    });

    it('aligned to the end: Apr 1, Jul 1, Oct 1', async () => {
      expect((await sum({ align_sampling: true, align_end_time: true })).map(([t]) => t))
        .to.deep.equal([utc(2014, 3, 1), utc(2014, 6, 1), utc(2014, 9, 1)]);
    });
  });

  describe('months starting mid-month: a point a day from Mar 10 to May 22', () => {
    const start = utc(2014, 2, 10);
    const points = everyStep(start, utc(2014, 4, 23), DAY, 1);
    const sum = (options: Record<string, unknown>) => aggregate(points, [{ name: 'sum', sampling: { value: 1, unit: 'months' }, ...options }], { start });

    it('without alignment: Mar 10 (31), Apr 10 (30), May 10 (13)', async () => {
      expect(await sum({})).to.deep.equal([[utc(2014, 2, 10), 31], [utc(2014, 3, 10), 30], [utc(2014, 4, 10), 13]]);
    });

    it('with align_sampling and align_start_time: Mar 1 (22), Apr 1 (30), May 1 (22)', async () => {
      expect(await sum({ align_sampling: true, align_start_time: true })).to.deep.equal([[utc(2014, 2, 1), 22], [utc(2014, 3, 1), 30], [utc(2014, 4, 1), 22]]);
    });

    it('aligned to the end: Apr 1, May 1, Jun 1', async () => {
      expect(await sum({ align_sampling: true, align_end_time: true })).to.deep.equal([[utc(2014, 3, 1), 22], [utc(2014, 4, 1), 30], [utc(2014, 5, 1), 22]]);
    });
  });

  it('weeks aligned to Monday: Dec 29 (3), Jan 5 (7), Jan 12 (7); to the end: Jan 5, 12, 19', async () => {
    const start = utc(2015, 0, 2, 1, 11);
    const points = everyStep(start, utc(2015, 0, 18, 11, 11), DAY, 1);
    const weeks = { name: 'sum', sampling: { value: 1, unit: 'weeks' }, align_sampling: true };
    expect(await aggregate(points, [{ ...weeks, align_start_time: true }], { start }))
      .to.deep.equal([[utc(2014, 11, 29), 3], [utc(2015, 0, 5), 7], [utc(2015, 0, 12), 7]]);
    expect((await aggregate(points, [{ ...weeks, align_end_time: true }], { start })).map(([t]) => t))
      .to.deep.equal([utc(2015, 0, 5), utc(2015, 0, 12), utc(2015, 0, 19)]);
  });

  it('days, hours, minutes and seconds: full buckets and a partial last one', async () => {
    const from = utc(2014, 0, 1);
    const count = async (to: number, step: number, unit: string) =>
      (await aggregate(everyStep(from, to, step, 1), [{ name: 'count', sampling: { value: 1, unit } }], { start: from })).map(([, v]) => v);
    expect(await count(utc(2014, 0, 3, 3), HOUR, 'days')).to.deep.equal([24, 24, 3]);
    expect(await count(utc(2014, 0, 1, 2, 20), 10 * 60_000, 'hours')).to.deep.equal([6, 6, 2]);
    expect(await count(utc(2014, 0, 1, 0, 2, 20), 10_000, 'minutes')).to.deep.equal([6, 6, 2]);
    expect(await count(utc(2014, 0, 1, 0, 0, 2, 200), 100, 'seconds')).to.deep.equal([10, 10, 2]);
  });

  describe('daylight saving time in Europe/Paris', () => {
    const hourly = (from: number, to: number) => everyStep(from, to, HOUR, 1);
    const monthCount = (points: [number, number][], start: number) =>
      aggregate(points, [{ name: 'count', sampling: { value: 1, unit: 'months' }, align_sampling: true }], { start, timeZone: 'Europe/Paris' });

    it('March 2014 has 743 hours, October 2014 has 745', async () => {
      const march = paris(2014, 2, 1);
      expect((await monthCount(hourly(march, paris(2014, 3, 1, 0, 2)), march)).map(([, v]) => v)).to.deep.equal([743]);
      const october = paris(2014, 9, 1, 0, 2);
      expect((await monthCount(hourly(october, paris(2014, 10, 1)), october)).map(([, v]) => v)).to.deep.equal([745]);
    });

    it('a day bucket follows the wall clock: Mar 30 2014 has 23 hours', async () => {
      const start = paris(2014, 2, 29);
      const points = hourly(start, paris(2014, 3, 1, 0, 2));
      const result = await aggregate(points, [{ name: 'count', sampling: { value: 1, unit: 'days' } }], { start, timeZone: 'Europe/Paris' });
      expect(result.map(([, v]) => v)).to.deep.equal([24, 23, 24]);
      expect(result[2][0]).to.equal(paris(2014, 2, 31, 0, 2));
    });

    it('counts 2 local days from Mar 29 00:00 to Mar 31 00:00 although 47 hours pass', () => {
      expect(unitsBetween('DAYS', zoneFor('Europe/Paris'), paris(2014, 2, 31, 0, 2), paris(2014, 2, 29))).to.equal(2);
    });
  });

  it('align_sampling with minutes anchors at local midnight, not the top of the hour', async () => {
    const start = utc(2014, 0, 1, 10, 7);
    const points: [number, number][] = [[start, 1], [utc(2014, 0, 1, 10, 16), 1]];
    const sampling = { value: 15, unit: 'minutes' };
    expect(await aggregate(points, [{ name: 'count', sampling, align_sampling: true, align_start_time: true }], { start }))
      .to.deep.equal([[utc(2014, 0, 1, 10, 0), 1], [utc(2014, 0, 1, 10, 15), 1]]);
    expect(await aggregate(points, [{ name: 'count', sampling, align_start_time: true }], { start })).to.deep.equal([[start, 2]]);
  });

  it('month arithmetic clamps the day and counts whole months (probe from Jan 31)', () => {
    const z = zoneFor('UTC');
    const a = utc(2013, 0, 31);
    expect([utc(2013, 1, 27), utc(2013, 1, 28), utc(2013, 2, 30), utc(2013, 2, 31)].map((t) => unitsBetween('MONTHS', z, t, a))).to.deep.equal([0, 1, 1, 2]);
    expect(addUnits('MONTHS', z, a, 1)).to.equal(utc(2013, 1, 28));
    expect(unitsBetween('YEARS', z, utc(2013, 1, 28), utc(2012, 1, 29))).to.equal(1);
  });

  it('rate and sampler periods follow the calendar (SamplingTest)', () => {
    const paris24 = zoneFor('Europe/Paris');
    expect(samplingLengthMs(paris(2014, 2, 30), { value: 1, unit: 'DAYS' }, paris24)).to.equal(23 * HOUR);
    expect(samplingLengthMs(paris(2014, 9, 26, 0, 2), { value: 1, unit: 'DAYS' }, paris24)).to.equal(25 * HOUR);
    expect(samplingLengthMs(utc(2014, 1, 1), { value: 1, unit: 'MONTHS' }, zoneFor('UTC'))).to.equal(28 * DAY);
    expect(samplingLengthMs(utc(2016, 1, 1), { value: 1, unit: 'MONTHS' }, zoneFor('UTC'))).to.equal(29 * DAY);
    expect(samplingLengthMs(utc(2016, 0, 1), { value: 1, unit: 'YEARS' }, zoneFor('UTC'))).to.equal(366 * DAY);
    expect(samplingLengthMs(utc(2016, 0, 1), { value: 3, unit: 'HOURS' }, paris24)).to.equal(3 * HOUR);
  });
});
