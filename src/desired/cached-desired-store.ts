import { ChangeFeed } from '../cluster/port';
import { createReadCache, ReadCacheOptions } from '../cluster/read-cache';
import { DesiredStore } from './port';

/**
 * How long a node of a cluster trusts its answer to "has this device desired state?" when no change notice came
 * (docs/production.md "Shared state"). Longer than SHARED_STATE_MAX_AGE_MS: every data write of every device asks, and
 * a lost notice only delays the delta pushes of data writes (desired writes push theirs, reads are always current).
 */
export const DESIRED_CHECK_MAX_AGE_MS = 60_000;

/** The desired store with the one question every data write asks of it, answered from memory. */
export interface CheckedDesiredStore extends DesiredStore {
  /**
   * True when the device has a desired document with at least one member. Every applied data write asks (its delta
   * may change), so the answer is kept (src/cluster/read-cache.ts): a device without desired state costs its data
   * writes no read of the store but one per the cache's age (none on a node alone, whose own writes drop it).
   */
  hasDesired(deviceid: string): Promise<boolean>;
}

/**
 * Reads and writes go to the store; a write drops this node's answer for the device and tells the other nodes to drop
 * theirs (kind `desired`), so a data write through any node sees a desired document made through another at once, or
 * within the cache's age if the notice is lost.
 */
export function checkedDesiredStore(store: DesiredStore, changes: ChangeFeed, options: ReadCacheOptions): CheckedDesiredStore {
  const cache = createReadCache<boolean>(options);
  changes.listen((notice) => {
    if (notice === 'all') cache.clear();
    else if (notice.kind === 'desired') cache.invalidate(notice.key);
  });
  return {
    readDesired: (deviceid) => store.readDesired(deviceid),
    async commitDesired(next, expectedRev) {
      try {
        return await store.commitDesired(next, expectedRev);
      } finally {
        // Whether or not it failed: a failed write may still have been applied.
        cache.invalidate(next.deviceid);
        changes.announce({ kind: 'desired', key: next.deviceid });
      }
    },
    hasDesired: (deviceid) =>
      cache.get(deviceid, async () => Object.keys((await store.readDesired(deviceid))?.desired ?? {}).length > 0),
  };
}
