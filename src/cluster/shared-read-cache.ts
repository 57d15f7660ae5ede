import { ChangeFeed, ChangeKind } from './port';
import { createReadCache, ReadCacheOptions } from './read-cache';

/**
 * A read cache of shared state that the nodes keep in step (docs/operations.md "Performance"): `read` answers from
 * this node's copy; `changing` runs a change, then drops this node's copy and tells the other nodes to drop theirs
 * under `kind`, whether the change failed or not (a failed write may still have been applied). A notice a node
 * misses is made good when its copy expires.
 */
export function createSharedReadCache<V>(kind: ChangeKind, changes: ChangeFeed, options: ReadCacheOptions) {
  const cache = createReadCache<V>(options);
  changes.listen((notice) => {
    if (notice === 'all') cache.clear();
    else if (notice.kind === kind) cache.invalidate(notice.key);
  });
  return {
    read: (key: string, load: () => Promise<V>): Promise<V> => cache.get(key, load),
    async changing<R>(key: string, write: () => Promise<R>): Promise<R> {
      try {
        return await write();
      } finally {
        cache.invalidate(key);
        changes.announce({ kind, key });
      }
    },
  };
}
