import { ChangeFeed } from '../cluster/port';
import { createReadCache, ReadCacheOptions } from '../cluster/read-cache';
import { Datatag } from './codecs';
import { DatatagOwner, DatatagStore, ownerKeyOf } from './port';

/**
 * Datatags as a node of a cluster reads them: every shadow write asks for its device's and its group's (like schemas,
 * src/schema/cached-schema-store.ts). A change drops this node's copy at once and tells the other nodes to drop theirs;
 * a notice they miss is made good when their copy expires.
 */
export function cachedDatatagStore(store: DatatagStore, changes: ChangeFeed, options: ReadCacheOptions): DatatagStore {
  const cache = createReadCache<Datatag[]>(options);
  changes.listen((notice) => {
    if (notice === 'all') cache.clear();
    else if (notice.kind === 'datatags') cache.invalidate(notice.key);
  });
  /** Runs a change, then drops the copies whether it failed or not: a failed write may still have been applied. */
  const changing = async <R>(owner: DatatagOwner, write: Promise<R>): Promise<R> => {
    try {
      return await write;
    } finally {
      const key = ownerKeyOf(owner);
      cache.invalidate(key);
      changes.announce({ kind: 'datatags', key });
    }
  };
  return {
    listDatatags: (owner) => cache.get(ownerKeyOf(owner), () => store.listDatatags(owner)),
    replaceDatatags: (owner, tags) => changing(owner, store.replaceDatatags(owner, tags)),
    putDatatag: (owner, tag) => changing(owner, store.putDatatag(owner, tag)),
    deleteDatatag: (owner, attr) => changing(owner, store.deleteDatatag(owner, attr)),
  };
}
