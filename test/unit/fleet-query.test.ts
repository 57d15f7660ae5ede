import { expect } from 'chai';
import { AppError } from '../../src/core/errors';
import { createFleetIndex } from '../../src/fleet/fleet-index';
import { DEFAULT_FLEET_LIMITS } from '../../src/fleet/limits';
import { comparePositions, firstOf, pickFields } from '../../src/fleet/order';
import { FleetEntry, FleetSource } from '../../src/fleet/port';
import { createFleetQueries } from '../../src/fleet/service';

const entry = (deviceid: string, data: FleetEntry['data'], groupid = 'g'): FleetEntry =>
  ({ deviceid, projectid: 'p', groupid, alias: deviceid, data, rev: 1, modified: 1 });

/** A store of devices held in memory, whose project read waits until `release` (to hold a query's slot). */
function heldSource(entries: FleetEntry[]) {
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const source: FleetSource = {
    loadProject: async () => (await held, entries),
    loadDevice: async (deviceid) => entries.find((e) => e.deviceid === deviceid),
  };
  return { source, release };
}

async function refusalOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('fleet query order', () => {
  it('puts numbers before strings before booleans before devices without a value, in either order', () => {
    const keys = [{ key: null, deviceid: 'e' }, { key: true, deviceid: 'd' }, { key: 'x', deviceid: 'c' }, { key: 2, deviceid: 'b' }, { key: 1, deviceid: 'a' }];

    const ascending = [...keys].sort((a, b) => comparePositions(a, b, false)).map((k) => k.deviceid);
    const descending = [...keys].sort((a, b) => comparePositions(a, b, true)).map((k) => k.deviceid);

    expect(ascending).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
    expect(descending).to.deep.equal(['b', 'a', 'c', 'd', 'e']);
  });

  it('keeps the first `limit` of what it is offered, in order, whatever order they come in', () => {
    const page = firstOf<{ key: number; deviceid: string }>(3, false);

    for (const n of [9, 4, 7, 1, 8, 3, 3]) page.offer({ key: n, deviceid: `d${n}-${page.items().length}` });

    expect(page.items().map((p) => p.key)).to.deep.equal([1, 3, 3]);
  });

  it('picks the fields asked, nested, leaving out what the data lacks and never touching a prototype', () => {
    const data = JSON.parse('{"a":{"b":1,"c":2},"d":3,"__proto__":{"x":1}}');

    const picked = pickFields(data, ['a.b', 'd', 'nope.x', '__proto__.x']);

    expect(JSON.stringify(picked)).to.equal('{"a":{"b":1},"d":3,"__proto__":{"x":1}}');
    expect(Object.getPrototypeOf(picked)).to.equal(Object.prototype);
    expect(({} as Record<string, unknown>).x).to.equal(undefined);
  });
});

describe('fleet query budgets and slots', () => {
  it('refuses a project\'s query beyond its slots and queue with TOO_MANY_QUERIES, and runs it once the slot is free', async () => {
    const { source, release } = heldSource([entry('a', { battery: 1 })]);
    const index = createFleetIndex({ source, projectOf: async () => 'p' });
    const fleet = createFleetQueries({ index, limits: { ...DEFAULT_FLEET_LIMITS, concurrency: 1, perCaller: 1, queuePerCaller: 0 } });

    const first = fleet.query('p', {});
    const refused = await refusalOf(fleet.query('p', {}));
    release();

    expect(refused.code).to.equal('TOO_MANY_QUERIES');
    expect(refused.extra.retryAfter).to.equal(1);
    expect((await first).items.map((i) => i.deviceid)).to.deep.equal(['a']);
    expect((await fleet.query('p', {})).total).to.equal(1);
  });

  it('stops a scan that runs past FLEET_QUERY_TIMEOUT_MS with QUERY_TIMEOUT', async () => {
    const entries = Array.from({ length: 5000 }, (_, i) => entry(`d${i}`, { n: i }));
    const { source, release } = heldSource(entries);
    release();
    let clock = 0;
    // Every look at the clock finds a second gone.
    const now = () => (clock += 1000);
    const fleet = createFleetQueries({ index: createFleetIndex({ source, projectOf: async () => 'p', now }), limits: { ...DEFAULT_FLEET_LIMITS, timeoutMs: 1500 }, now });

    const refused = await refusalOf(fleet.query('p', { filter: '$.n >= 0' }));

    expect(refused.code).to.equal('QUERY_TIMEOUT');
    expect(refused.extra.budget).to.equal('FLEET_QUERY_TIMEOUT_MS');
  });

  it('holds a device only once its shadow is written, and reads it again on a notice of a newer rev', async () => {
    const stored = [entry('a', { battery: 1 }), { ...entry('b', {}), rev: 0 }];
    const source: FleetSource = { loadProject: async () => stored, loadDevice: async (id) => stored.find((e) => e.deviceid === id) };
    const index = createFleetIndex({ source, projectOf: async () => 'p' });
    const fleet = createFleetQueries({ index, limits: DEFAULT_FLEET_LIMITS });
    expect((await fleet.query('p', {})).items.map((i) => i.deviceid)).to.deep.equal(['a']);

    stored[1] = { ...entry('b', { battery: 5 }), rev: 1 };
    stored[0] = { ...entry('a', { battery: 2 }), rev: 2 };
    index.shadowWritten('b', 1);
    index.shadowWritten('a', 2);
    await index.settled();

    expect((await fleet.query('p', { sort: { field: 'battery' } })).items.map((i) => i.data)).to.deep.equal([{ battery: 2 }, { battery: 5 }]);
  });

  it('reads the project again before its next answer once notices may have been missed, and drops what is gone', async () => {
    const stored = [entry('a', { battery: 1 }), entry('b', { battery: 2 })];
    let reads = 0;
    const source: FleetSource = { loadProject: async () => (reads++, [...stored]), loadDevice: async (id) => stored.find((e) => e.deviceid === id) };
    const index = createFleetIndex({ source, projectOf: async () => 'p' });
    const fleet = createFleetQueries({ index, limits: DEFAULT_FLEET_LIMITS });
    await fleet.query('p', {});

    stored.splice(0, 2, { ...entry('b', { battery: 9 }), rev: 2 });
    index.forgetAll();
    const answer = await fleet.query('p', {});

    expect(reads).to.equal(2);
    expect(answer.items.map((i) => [i.deviceid, i.data])).to.deep.equal([['b', { battery: 9 }]]);
  });

  it('leaves no index behind when the first read fails, and reads again at the next query', async () => {
    let fail = true;
    const source: FleetSource = {
      loadProject: async () => {
        if (fail) throw new AppError('BACKEND_UNAVAILABLE', 'store down');
        return [entry('a', { battery: 1 })];
      },
      loadDevice: async () => undefined,
    };
    const fleet = createFleetQueries({ index: createFleetIndex({ source, projectOf: async () => 'p' }), limits: DEFAULT_FLEET_LIMITS });

    expect((await refusalOf(fleet.query('p', {}))).code).to.equal('BACKEND_UNAVAILABLE');
    fail = false;

    expect((await fleet.query('p', {})).total).to.equal(1);
  });
});
