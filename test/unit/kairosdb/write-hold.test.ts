import { expect } from 'chai';
import pino from 'pino';
import { KairosDbClient, unavailable } from '../../../src/adapters/kairosdb/kairosdb-client';
import { createWriteHold, rangesCover, WriteHold } from '../../../src/adapters/kairosdb/kairosdb-write-hold';
import { Point } from '../../../src/timeseries/point';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const point = (metric: string, timestamp: number, value = 1, attr = 'temp'): Point => ({ metric, tags: { attr }, timestamp, value });

/** A KairosDB that is up or down (its /version fails), and the held points it was sent again. */
function fakeKairosDb() {
  const state = { up: true, probes: 0, replays: [] as Point[][] };
  const client: KairosDbClient = {
    async request() {
      state.probes++;
      if (!state.up) throw unavailable('connection refused');
      return { status: 200, data: { version: 'KairosDB 1.2.1' } };
    },
    close() {},
  };
  return { state, client };
}

describe('KairosDB write hold (issue 23 §4)', () => {
  const HOLD_MS = 150;
  let hold: WriteHold;
  let kairos: ReturnType<typeof fakeKairosDb>;

  beforeEach(() => {
    kairos = fakeKairosDb();
    hold = createWriteHold({
      client: kairos.client, logger: pino({ level: 'silent' }), holdMs: HOLD_MS, timeoutMs: 300, probeMs: 10,
      replay: async (points) => {
        if (!kairos.state.up) throw unavailable('connection refused');
        kairos.state.replays.push([...points]);
      },
    });
  });
  afterEach(() => hold.close());

  it('holds written points for the hold time while KairosDB stays up, then lets them go without writing them again', async () => {
    await hold.write([point('a', 1), point('a', 2)], async () => undefined);
    expect(hold.size).to.equal(2);

    await sleep(HOLD_MS + 80);

    expect(hold.size).to.equal(0);
    expect(kairos.state.replays).to.deep.equal([]);
    expect(kairos.state.probes).to.be.greaterThan(0);
  });

  it('writes every held point again, in the order first written, once KairosDB answers after going away', async () => {
    await hold.write([point('a', 1, 10)], async () => undefined);
    await hold.write([point('a', 1, 20), point('b', 5)], async () => undefined);
    kairos.state.up = false;
    await sleep(40);
    expect(kairos.state.replays).to.deep.equal([]);

    kairos.state.up = true;
    await sleep(40);

    expect(kairos.state.replays).to.deep.equal([[point('a', 1, 10), point('a', 1, 20), point('b', 5)]]);
    // Held again for a full hold after the replay, then let go.
    expect(hold.size).to.equal(3);
    await sleep(HOLD_MS + 80);
    expect(hold.size).to.equal(0);
    expect(kairos.state.replays).to.have.length(1);
  });

  it('counts a failed write as KairosDB going away: what it held before is written again', async () => {
    await hold.write([point('a', 1)], async () => undefined);
    const failed = hold.write([point('a', 2)], async () => Promise.reject(unavailable('connection reset')));
    await failed.then(() => expect.fail('the write should fail'), () => undefined);
    await sleep(40);

    expect(kairos.state.replays).to.deep.equal([[point('a', 1)]]);
    expect(hold.size).to.equal(1);
  });

  it('runs writes one at a time, so that a replay never lands after a newer write', async () => {
    const order: string[] = [];
    const slow = hold.write([point('a', 1)], async () => {
      await sleep(30);
      order.push('first');
    });
    const fast = hold.write([point('a', 1, 2)], async () => {
      order.push('second');
    });
    await Promise.all([slow, fast]);
    expect(order).to.deep.equal(['first', 'second']);
  });

  it('makes a delete wait until the held points it covers have been held their full time, and no longer', async () => {
    await hold.write([point('a', 1), point('b', 1)], async () => undefined);
    const started = Date.now();
    await hold.settle((p) => p.metric === 'c');
    expect(Date.now() - started).to.be.lessThan(HOLD_MS / 2);

    await hold.settle((p) => p.metric === 'a');

    expect(Date.now() - started).to.be.within(HOLD_MS - 10, HOLD_MS + 500);
    expect(hold.size).to.equal(0);
  });

  it('does not make a delete wait for points written after it began', async () => {
    await hold.write([point('a', 1)], async () => undefined);
    const settled = hold.settle((p) => p.metric === 'a');
    await sleep(HOLD_MS / 2);
    await hold.write([point('a', 2)], async () => undefined);
    await settled;
    expect(hold.size).to.equal(1);
  });

  it('fails a delete with BACKEND_UNAVAILABLE when KairosDB stays away longer than the hold and one deadline', async () => {
    await hold.write([point('a', 1)], async () => undefined);
    kairos.state.up = false;

    const err = await hold.settle((p) => p.metric === 'a').then(() => undefined, (e: unknown) => e);

    expect(err).to.have.property('code', 'BACKEND_UNAVAILABLE');
  });

  it('holds nothing with a hold time of 0', async () => {
    const none = createWriteHold({ client: kairos.client, logger: pino({ level: 'silent' }), holdMs: 0, timeoutMs: 300, replay: async () => undefined });
    await none.write([point('a', 1)], async () => undefined);
    expect(none.size).to.equal(0);
    none.close();
  });
});

describe('rangesCover: which held points a delete covers', () => {
  const range = { metric: 'm', tags: { attr: ['temp', 'humid'] }, start: 10, end: 20 };

  it('covers a point of the metric in the range, both ends included, whose tags are among those listed', () => {
    expect(rangesCover([range], point('m', 10))).to.equal(true);
    expect(rangesCover([range], point('m', 20, 1, 'humid'))).to.equal(true);
  });

  it('leaves other metrics, times and tag values alone; an empty list filters nothing', () => {
    expect(rangesCover([range], point('n', 15))).to.equal(false);
    expect(rangesCover([range], point('m', 21))).to.equal(false);
    expect(rangesCover([range], point('m', 15, 1, 'light'))).to.equal(false);
    expect(rangesCover([{ ...range, tags: { attr: [] } }], point('m', 15, 1, 'light'))).to.equal(true);
    expect(rangesCover([{ ...range, tags: {} }], point('m', 15, 1, 'light'))).to.equal(true);
  });
});
