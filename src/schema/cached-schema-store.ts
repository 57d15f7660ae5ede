import { ChangeFeed } from '../cluster/port';
import { ReadCacheOptions } from '../cluster/read-cache';
import { createSharedReadCache } from '../cluster/shared-read-cache';
import { ShadowSchema } from './codecs';
import { SchemaOwner, SchemaStore } from './port';

const keyOf = (owner: SchemaOwner) => ('deviceid' in owner ? `device:${owner.deviceid}` : `group:${owner.projectid}/${owner.groupid}`);

/**
 * Schemas as a node of a cluster reads them: every shadow write asks for its device's schema and its group's, so
 * both are kept (src/cluster/shared-read-cache.ts).
 */
export function cachedSchemaStore(store: SchemaStore, changes: ChangeFeed, options: ReadCacheOptions): SchemaStore {
  const cache = createSharedReadCache<ShadowSchema | undefined>('schema', changes, options);
  return {
    getSchema: (owner) => cache.read(keyOf(owner), () => store.getSchema(owner)),
    putSchema: (owner, schema) => cache.changing(keyOf(owner), () => store.putSchema(owner, schema)),
    deleteSchema: (owner) => cache.changing(keyOf(owner), () => store.deleteSchema(owner)),
  };
}
