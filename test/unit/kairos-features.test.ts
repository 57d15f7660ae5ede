import { expect } from 'chai';
import { FeatureProperty, FEATURES } from '../../src/timeseries/kairos-features';
import { validateQuery } from '../../src/timeseries/query';

/** A JSON value for a property, from its type and defaultValue, as a form built from /features would send it. */
function valueOf(p: FeatureProperty): unknown {
  if (p.type === 'Object') return Object.fromEntries((p.properties ?? []).map((q) => [q.name, valueOf(q)]));
  const d = p.defaultValue ?? '';
  switch (p.type) {
    case 'boolean': return d === 'true';
    case 'int':
    case 'long':
    case 'double': return Number(d);
    case 'array': return p.name === 'bins' ? [10, 20] : ['attr'];
    default: return d === '' ? 'saved-metric' : d;
  }
}

const componentsOf = (name: string) => FEATURES.find((f) => f.name === name)!.properties;

const query = (metric: Record<string, unknown>) => ({ start_absolute: 0, end_absolute: 1000, metrics: [{ name: 'm', ...metric }] });

/** Every aggregator name of KairosDB 1.2/1.3, its extensions and the kise module: the engine accepts some of them. */
const KNOWN_NAMES = [
  'avg', 'count', 'dev', 'diff', 'div', 'filter', 'first', 'gaps', 'last', 'least_squares', 'max', 'min', 'percentile', 'rate',
  'sma', 'sampler', 'save_as', 'scale', 'sum', 'trim', 'histogram', 'js_function', 'js_filter', 'js_range', 'score', 'drop',
  'range', 'limit', 'merge', 'apdex', 'movingWindow', 'hpercentile', 'percent_remaining',
];

describe('GET /features: the list matches the query validator', () => {
  it('lists exactly the aggregator names the engine accepts', () => {
    const accepted = KNOWN_NAMES.filter((name) => {
      try {
        validateQuery(query({ aggregators: [{ name }] }), 1000);
        return true;
      } catch (err) {
        return !(err as Error).message.includes('invalid aggregators name');
      }
    });
    expect(componentsOf('aggregators').map((c) => c.name)).to.have.members(accepted);
  });

  for (const aggregator of componentsOf('aggregators')) {
    it(`aggregator ${aggregator.name}: every listed property binds, at its default value`, () => {
      const object = { name: aggregator.name, ...Object.fromEntries(aggregator.properties.map((p) => [p.name, valueOf(p)])) };
      expect(() => validateQuery(query({ aggregators: [object] }), 1000)).to.not.throw();
    });
  }

  for (const grouper of componentsOf('group_by')) {
    it(`grouper ${grouper.name}: every listed property binds`, () => {
      const object = { name: grouper.name, ...Object.fromEntries(grouper.properties.map((p) => [p.name, valueOf(p)])) };
      expect(() => validateQuery(query({ group_by: [object] }), 1000)).to.not.throw();
    });
  }

  it('gives every property KairosDB\'s keys', () => {
    const leaves = FEATURES.flatMap((f) => f.properties.flatMap((c) => c.properties.flatMap((p) => p.properties ?? [p])));
    for (const p of leaves) {
      expect(p, p.name).to.have.keys('name', 'label', 'description', 'optional', 'type', 'options', 'defaultValue', 'autocomplete', 'multiline', 'validations');
    }
  });
});
