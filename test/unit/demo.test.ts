import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/config';
import { reachableBaseUrl } from '../../src/demo/demo-mode';
import { backfillBatches, gapBatches, sampleReading } from '../../src/demo/sample-readings';
import { startSampleStream } from '../../src/demo/sample-stream';

const DAY = 24 * 3600 * 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('demo mode', () => {
  describe('DEMO in the configuration', () => {
    it('is off by default and on with DEMO=true', () => {
      expect(loadConfig({}).demo).to.equal(false);
      expect(loadConfig({ DEMO: 'true' }).demo).to.equal(true);
      expect(loadConfig({ DEMO: 'false' }).demo).to.equal(false);
    });

    it('refuses anything but true or false, so a typo never means off', () => {
      expect(() => loadConfig({ DEMO: 'ture' })).to.throw(ConfigError, /DEMO: must be true or false/);
    });
  });

  describe('backfill readings', () => {
    const now = Date.UTC(2025, 0, 15, 12, 0, 0);
    const batches = backfillBatches(now, DAY, 60_000, 100);

    it('covers the last 24 h at one reading a minute, oldest first, in batches of at most 100', () => {
      const items = batches.flat();
      expect(items).to.have.lengthOf(1440);
      expect(batches).to.have.lengthOf(15);
      for (const batch of batches) expect(batch.length).to.be.within(1, 100);
      expect(items[0].ts).to.equal(now - DAY);
      expect(items[items.length - 1].ts).to.equal(now - 60_000);
      for (let i = 1; i < items.length; i++) expect(items[i].ts - items[i - 1].ts).to.equal(60_000);
    });

    it('gives plausible room readings that follow the day', () => {
      for (const { data } of batches.flat()) {
        expect(data.temp).to.be.within(21, 31);
        expect(data.humid).to.be.within(47, 73);
      }
      const at = (hour: number) => sampleReading(Date.UTC(2025, 0, 15, hour), () => 0.5);
      expect(at(17).temp).to.be.greaterThan(at(5).temp);
      expect(at(17).humid).to.be.lessThan(at(5).humid);
    });
  });

  describe('readings of a gap (a restart, a lost connection)', () => {
    const now = Date.UTC(2025, 0, 15, 12, 0, 0);
    const tss = (after: number) => gapBatches(after, now, 5_000, 100).flat().map((r) => r.ts);

    it('fills a short gap at the stream\'s own interval, after the last reading and before now', () => {
      expect(tss(now - 30_000)).to.deep.equal([-25_000, -20_000, -15_000, -10_000, -5_000].map((d) => now + d));
      expect(tss(now - 5_000)).to.deep.equal([]);
    });

    it('fills a gap of over an hour at one reading a minute, and at most the last 24 h, in batches of at most 100', () => {
      const day = gapBatches(now - 3 * DAY, now, 5_000, 100);
      const items = day.flat();
      expect(items[0].ts).to.equal(now - DAY);
      expect(items).to.have.lengthOf(1440);
      for (const batch of day) expect(batch.length).to.be.within(1, 100);
      expect(tss(now - 2 * 3_600_000)).to.have.lengthOf(119);
    });
  });

  describe('the sample stream', () => {
    it('writes every interval, one write at a time', async () => {
      let writes = 0;
      let running = 0;
      let overlapped = false;
      const stream = startSampleStream(async () => {
        running++;
        overlapped ||= running > 1;
        await sleep(15);
        writes++;
        running--;
      }, 5, () => undefined);
      await sleep(120);
      await stream.stop();
      expect(writes).to.be.greaterThan(2);
      expect(overlapped).to.equal(false);
    });

    it('stops: waits for the write in flight and starts no other', async () => {
      let started = 0;
      let finished = 0;
      const stream = startSampleStream(async () => {
        started++;
        await sleep(30);
        finished++;
      }, 5, () => undefined);
      await sleep(20);
      await stream.stop();
      expect(finished).to.equal(started);
      const after = started;
      await sleep(50);
      expect(started).to.equal(after);
    });

    it('reports a failed write and goes on', async () => {
      const errors: unknown[] = [];
      let calls = 0;
      const stream = startSampleStream(async () => {
        calls++;
        throw new Error('disk full');
      }, 5, (err) => errors.push(err));
      await sleep(60);
      await stream.stop();
      expect(calls).to.be.greaterThan(1);
      expect(errors).to.have.lengthOf(calls);
    });
  });

  it('prints a wildcard bind address as localhost', () => {
    expect(reachableBaseUrl('0.0.0.0', 8080)).to.equal('http://localhost:8080');
    expect(reachableBaseUrl('::', 8080)).to.equal('http://localhost:8080');
    expect(reachableBaseUrl('127.0.0.1', 81)).to.equal('http://127.0.0.1:81');
    expect(reachableBaseUrl('::1', 81)).to.equal('http://[::1]:81');
  });
});
