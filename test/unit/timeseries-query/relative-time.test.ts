import { expect } from 'chai';
import { validateQuery } from '../../../src/timeseries/query';

/** RelativeTimeTest vectors (reference §3.4): now minus a duration in a UTC calendar, whatever time_zone says. */
const NOW = Date.UTC(2013, 0, 18, 4, 55, 12, 22);

const startFor = (value: number, unit: string, now = NOW, timeZone?: string) =>
  validateQuery({ start_relative: { value, unit }, ...(timeZone ? { time_zone: timeZone } : {}), metrics: [{ name: 'm' }] }, now).metrics[0].start;

describe('relative times (reference §3.4)', () => {
  it('subtracts fixed lengths for milliseconds to weeks', () => {
    expect(startFor(5, 'milliseconds')).to.equal(Date.UTC(2013, 0, 18, 4, 55, 12, 17));
    expect(startFor(5, 'seconds')).to.equal(Date.UTC(2013, 0, 18, 4, 55, 7, 22));
    expect(startFor(5, 'minutes')).to.equal(Date.UTC(2013, 0, 18, 4, 50, 12, 22));
    expect(startFor(3, 'hours')).to.equal(Date.UTC(2013, 0, 18, 1, 55, 12, 22));
    expect(startFor(3, 'days')).to.equal(Date.UTC(2013, 0, 15, 4, 55, 12, 22));
    expect(startFor(3, 'weeks')).to.equal(Date.UTC(2012, 11, 28, 4, 55, 12, 22));
  });

  it('subtracts calendar months and years, keeping the time of day', () => {
    expect(startFor(2, 'months')).to.equal(Date.UTC(2012, 10, 18, 4, 55, 12, 22));
    expect(startFor(3, 'years')).to.equal(Date.UTC(2010, 0, 18, 4, 55, 12, 22));
  });

  it('clamps the day of month: Mar 31 - 1 month is Feb 28, Feb 29 - 1 year is Feb 28', () => {
    expect(startFor(1, 'months', Date.UTC(2013, 2, 31, 10))).to.equal(Date.UTC(2013, 1, 28, 10));
    expect(startFor(1, 'years', Date.UTC(2012, 1, 29, 10))).to.equal(Date.UTC(2011, 1, 28, 10));
  });

  it('ignores the query time zone', () => {
    expect(startFor(3, 'days', NOW, 'Europe/Paris')).to.equal(startFor(3, 'days'));
    expect(startFor(2, 'months', NOW, 'Asia/Bangkok')).to.equal(startFor(2, 'months'));
  });

  it('relative end: start_relative 30 minutes and end_relative 10 minutes span 20 minutes (spec 2.6 example)', () => {
    const q = validateQuery({ start_relative: { value: 30, unit: 'minutes' }, end_relative: { value: 10, unit: 'minutes' }, metrics: [{ name: 'm' }] }, NOW);
    expect(q.metrics[0].end - q.metrics[0].start).to.equal(20 * 60_000);
    expect(q.metrics[0].end).to.equal(NOW - 10 * 60_000);
  });
});
