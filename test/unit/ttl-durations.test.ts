import { expect } from 'chai';
import { isLeft, isRight } from 'fp-ts/Either';
import { formatTtl, MAX_TTL_MS, parseTtl, Ttl } from '../../src/timeseries/durations';

const DAY = 86_400_000;

describe('ttl durations (NETPIE store.ttl units)', () => {
  it('reads each unit: ms s m h d y, a year being 365 days', () => {
    expect(parseTtl('250ms')).to.deep.equal({ ms: 250 });
    expect(parseTtl('3s')).to.deep.equal({ ms: 3000 });
    expect(parseTtl('7m')).to.deep.equal({ ms: 420_000 });
    expect(parseTtl('2h')).to.deep.equal({ ms: 7_200_000 });
    expect(parseTtl('30d')).to.deep.equal({ ms: 30 * DAY });
    expect(parseTtl('1y')).to.deep.equal({ ms: 365 * DAY });
  });

  it('reads a bare number, as a number or as text, as milliseconds', () => {
    expect(parseTtl(3000)).to.deep.equal({ ms: 3000 });
    expect(parseTtl('3000')).to.deep.equal({ ms: 3000 });
    expect(parseTtl(' 45 s ')).to.deep.equal({ ms: 45_000 });
  });

  it('refuses zero, negatives, fractions, unknown units and anything longer than 20 years', () => {
    for (const bad of ['0', '0d', 0, -5, 1.5, '1.5h', '-3s', '30 days', '3w', '1M', '', 'unlimited', Number.NaN]) {
      expect(parseTtl(bad), String(bad)).to.have.property('problem');
    }
    expect(parseTtl('20y')).to.deep.equal({ ms: MAX_TTL_MS });
    expect(parseTtl('7301d')).to.deep.equal({ problem: 'must be at most 20y' });
    expect(parseTtl(MAX_TTL_MS + 1)).to.deep.equal({ problem: 'must be at most 20y' });
  });

  it('formats a ttl in the largest unit that divides it', () => {
    expect(formatTtl(30 * DAY)).to.equal('30d');
    expect(formatTtl(365 * DAY)).to.equal('1y');
    expect(formatTtl(90_000)).to.equal('90s');
    expect(formatTtl(1500)).to.equal('1500ms');
    for (const text of ['7m', '36h', '2y', '999ms']) expect(formatTtl((parseTtl(text) as { ms: number }).ms)).to.equal(text);
  });

  it('decodes at an edge through the Ttl codec, naming the problem', () => {
    const good = Ttl.decode('5m');
    expect(isRight(good) && good.right).to.equal(300_000);
    const bad = Ttl.decode({ ttl: '5m' });
    expect(isLeft(bad)).to.equal(true);
    const tooLong = Ttl.decode('21y');
    expect(isLeft(tooLong) && tooLong.left[0].message).to.equal('must be at most 20y');
    expect(Ttl.encode(300_000)).to.equal('5m');
  });
});
