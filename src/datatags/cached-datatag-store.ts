import { ChangeFeed } from '../cluster/port';
import { ReadCacheOptions } from '../cluster/read-cache';
import { createSharedReadCache } from '../cluster/shared-read-cache';
import { Datatag } from './codecs';
import { DatatagStore, ownerKeyOf } from './port';

/**
 * Datatags as a node of a cluster reads them: every shadow write asks for its device's and its group's, like schemas
 * (src/cluster/shared-read-cache.ts).
 */
export function cachedDatatagStore(store: DatatagStore, changes: ChangeFeed, options: ReadCacheOptions): DatatagStore {
  const cache = createSharedReadCache<Datatag[]>('datatags', changes, options);
  return {
    listDatatags: (owner) => cache.read(ownerKeyOf(owner), () => store.listDatatags(owner)),
    replaceDatatags: (owner, tags) => cache.changing(ownerKeyOf(owner), () => store.replaceDatatags(owner, tags)),
    putDatatag: (owner, tag) => cache.changing(ownerKeyOf(owner), () => store.putDatatag(owner, tag)),
    deleteDatatag: (owner, attr) => cache.changing(ownerKeyOf(owner), () => store.deleteDatatag(owner, attr)),
  };
}
