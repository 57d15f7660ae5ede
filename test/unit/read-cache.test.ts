import { expect } from 'chai';
import { createReadCache } from '../../src/cluster/read-cache';

/** A read the test resolves by hand, counting how often the cache asked. */
function reads<V>() {
  const waiting: ((value: V) => void)[] = [];
  let count = 0;
  return {
    read: () => {
      count++;
      return new Promise<V>((resolve) => waiting.push(resolve));
    },
    resolveNext: (value: V) => waiting.shift()!(value),
    get count() {
      return count;
    },
  };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('read cache of shared state (src/cluster/read-cache.ts)', () => {
  it('reads a key once while its copy is younger than the max age, and again after', async () => {
    let clock = 0;
    const cache = createReadCache<string | undefined>({ maxAgeMs: 5000, now: () => clock });
    const store = reads<string | undefined>();

    const first = cache.get('k', store.read);
    store.resolveNext(undefined);
    expect(await first).to.equal(undefined);
    clock = 4999;
    expect(await cache.get('k', store.read)).to.equal(undefined);
    expect(store.count).to.equal(1);

    clock = 5000;
    const again = cache.get('k', store.read);
    store.resolveNext('v2');
    expect(await again).to.equal('v2');
    expect(store.count).to.equal(2);
  });

  it('never keeps what a read under way when its key was invalidated answers', async () => {
    const cache = createReadCache<string>({ maxAgeMs: 5000, now: () => 0 });
    const store = reads<string>();

    const before = cache.get('k', store.read);
    cache.invalidate('k');
    const after = cache.get('k', store.read);
    store.resolveNext('old');
    store.resolveNext('new');

    expect(await before).to.equal('old');
    expect(await after).to.equal('new');
    expect(await cache.get('k', store.read)).to.equal('new');
    expect(store.count).to.equal(2);
  });

  it('forgets a failed read, and every key on clear', async () => {
    const cache = createReadCache<string>({ maxAgeMs: 5000, now: () => 0 });
    let fail = true;
    const read = async () => {
      if (fail) throw new Error('down');
      return 'v';
    };

    await cache.get('k', read).catch(() => undefined);
    fail = false;
    expect(await cache.get('k', read)).to.equal('v');

    let reread = false;
    cache.clear();
    await cache.get('k', async () => ((reread = true), 'w'));
    expect(reread).to.equal(true);
  });

  it('answers peek from its copy without waiting: nothing at first, then the copy, still while it is read again', async () => {
    let clock = 0;
    const cache = createReadCache<number>({ maxAgeMs: 5000, now: () => clock });
    const store = reads<number>();

    expect(cache.peek('k', store.read)).to.equal(undefined);
    store.resolveNext(1);
    await settle();
    expect(cache.peek('k', store.read)).to.deep.equal({ value: 1 });

    clock = 6000;
    expect(cache.peek('k', store.read)).to.deep.equal({ value: 1 });
    expect(cache.peek('k', store.read)).to.deep.equal({ value: 1 });
    expect(store.count).to.equal(2);
    store.resolveNext(2);
    await settle();
    expect(cache.peek('k', store.read)).to.deep.equal({ value: 2 });
  });

  it('holds at most maxEntries keys, dropping the oldest', async () => {
    const cache = createReadCache<string>({ maxAgeMs: 5000, now: () => 0, maxEntries: 2 });
    let count = 0;
    const read = async () => String(++count);

    for (const key of ['a', 'b', 'c']) await cache.get(key, read);
    await cache.get('a', read);

    expect(count).to.equal(4);
  });
});
