import { ChangeFeed } from '../cluster/port';
import { createReadCache, ReadCacheOptions } from '../cluster/read-cache';
import { EventHook, TriggerList } from './codecs';
import { TriggerStore } from './port';

const hookKey = (projectid: string, name: string) => `${projectid}/${name}`;

/**
 * Triggers and hooks as a node of a cluster reads them: every shadow write and status change asks for the device's
 * triggers, and each firing for its hooks, so both are kept (src/cluster/read-cache.ts); a hook listing (the
 * admin's) is always read from the store. A change drops this node's copy at once and tells the other nodes.
 */
export function cachedTriggerStore(store: TriggerStore, changes: ChangeFeed, options: ReadCacheOptions): TriggerStore {
  const triggers = createReadCache<TriggerList | undefined>(options);
  const hooks = createReadCache<EventHook | undefined>(options);
  changes.listen((notice) => {
    if (notice === 'all') {
      triggers.clear();
      hooks.clear();
    } else if (notice.kind === 'triggers') triggers.invalidate(notice.key);
    else if (notice.kind === 'hook') hooks.invalidate(notice.key);
  });
  const triggersChanged = (deviceid: string) => {
    triggers.invalidate(deviceid);
    changes.announce({ kind: 'triggers', key: deviceid });
  };
  const hookChanged = (projectid: string, name: string) => {
    const key = hookKey(projectid, name);
    hooks.invalidate(key);
    changes.announce({ kind: 'hook', key });
  };
  /** Runs a change, then drops the copies whether it failed or not: a failed write may still have been applied. */
  const changing = async <R>(write: Promise<R>, after: () => void): Promise<R> => {
    try {
      return await write;
    } finally {
      after();
    }
  };

  return {
    getTriggers: (deviceid) => triggers.get(deviceid, () => store.getTriggers(deviceid)),
    putTriggers: (deviceid, list) => changing(store.putTriggers(deviceid, list), () => triggersChanged(deviceid)),
    deleteTriggers: (deviceid) => changing(store.deleteTriggers(deviceid), () => triggersChanged(deviceid)),
    getHook: (projectid, name) => hooks.get(hookKey(projectid, name), () => store.getHook(projectid, name)),
    listHooks: (projectid) => store.listHooks(projectid),
    putHook: (projectid, name, hook) => changing(store.putHook(projectid, name, hook), () => hookChanged(projectid, name)),
    deleteHook: (projectid, name) => changing(store.deleteHook(projectid, name), () => hookChanged(projectid, name)),
  };
}
