import { ChangeFeed } from '../cluster/port';
import { createReadCache, ReadCacheOptions } from '../cluster/read-cache';
import { ShadowSchema } from './codecs';
import { SchemaOwner, SchemaStore } from './port';

const keyOf = (owner: SchemaOwner) => ('deviceid' in owner ? `device:${owner.deviceid}` : `group:${owner.projectid}/${owner.groupid}`);

/**
 * Schemas as a node of a cluster reads them: every shadow write asks for its device's schema and its group's, so
 * both are kept (src/cluster/read-cache.ts). A change drops this node's copy at once and tells the other nodes to
 * drop theirs; a notice they miss is made good when their copy expires.
 */
export function cachedSchemaStore(store: SchemaStore, changes: ChangeFeed, options: ReadCacheOptions): SchemaStore {
  const cache = createReadCache<ShadowSchema | undefined>(options);
  changes.listen((notice) => {
    if (notice === 'all') cache.clear();
    else if (notice.kind === 'schema') cache.invalidate(notice.key);
  });
  /** Runs a change, then drops the copies whether it failed or not: a failed write may still have been applied. */
  const changing = async <R>(owner: SchemaOwner, write: Promise<R>): Promise<R> => {
    try {
      return await write;
    } finally {
      const key = keyOf(owner);
      cache.invalidate(key);
      changes.announce({ kind: 'schema', key });
    }
  };
  return {
    getSchema: (owner) => cache.get(keyOf(owner), () => store.getSchema(owner)),
    putSchema: (owner, schema) => changing(owner, store.putSchema(owner, schema)),
    deleteSchema: (owner) => changing(owner, store.deleteSchema(owner)),
  };
}
