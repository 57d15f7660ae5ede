import { expect } from 'chai';
import { AppError } from '../../src/core/errors';
import { Json } from '../../src/core/json';
import { compileExpression } from '../../src/expressions/compile';
import { truthy } from '../../src/expressions/values';
import { compileFilter } from '../../src/fleet/filter';

/** A small seeded generator (mulberry32), so a failure names its case. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Literals the language has (it writes no object literals). */
const VALUES: Json[] = [0, 1, 20, -3.5, '', '2.0', '2.1', true, false, null, [1, 2]];
const PATHS = ['$.battery', '$.fw', '$.env.temp', '$.missing', '$device.groupid', '$device.rev', '$'];

function anExpression(next: () => number, depth: number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  if (depth <= 0 || next() < 0.3) return next() < 0.6 ? pick(PATHS) : JSON.stringify(pick(VALUES));
  const a = () => anExpression(next, depth - 1);
  switch (pick(['compare', 'equal', 'logical', 'not', 'negate', 'conditional'] as const)) {
    case 'compare':
      return `(${a()} ${pick(['<', '<=', '>', '>='])} ${a()})`;
    case 'equal':
      return `(${a()} ${pick(['==', '!=', '===', '!=='])} ${a()})`;
    case 'logical':
      return `(${a()} ${pick(['&&', '||', '??'])} ${a()})`;
    case 'not':
      return `!${a()}`;
    case 'negate':
      return `-${a()}`;
    case 'conditional':
      return `(${a()} ? ${a()} : ${a()})`;
  }
}

/** What a run gives: true/false, or the error's message. */
function outcome(run: () => boolean): string {
  try {
    return String(run());
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

describe('fleet query filter', () => {
  it('decides as the expression evaluator does, on 5,000 random filters over varied shadows', () => {
    const next = random(25_04);
    const shadows: Json[] = [{ battery: 15, fw: '2.0', env: { temp: 30 } }, { battery: '15', fw: null }, {}, { env: 5 }];
    for (let i = 0; i < 5000; i++) {
      const source = anExpression(next, 4);
      const data = shadows[i % shadows.length];
      const variables = new Map<string, Json>([['$', data], ['$device', { groupid: 'g1', rev: 3 }]]);

      const fast = outcome(() => compileFilter(source)(variables));
      const reference = outcome(() => truthy(compileExpression(source).run(variables)));

      expect(fast, `${source} over ${JSON.stringify(data)}`).to.equal(reference);
    }
  });

  it('runs filters outside its fast subset through the evaluator', () => {
    const variables = new Map<string, Json>([['$', { battery: 15, tags: ['a'] }], ['$device', {}]]);

    expect(compileFilter('$.battery * 2 > 20 && "a" in $.tags')(variables)).to.equal(true);
    expect(compileFilter('round($.battery / 10) == 2')(variables)).to.equal(true);
  });

  it('refuses a filter that does not parse, or names another variable, with INVALID_FILTER', () => {
    for (const source of ['$.a <', '$NEW.a > 1', 'nosuch()']) {
      expect(() => compileFilter(source), source).to.throw(AppError).with.property('code', 'INVALID_FILTER');
    }
  });
});
