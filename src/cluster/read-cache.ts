/** How long a node may use what it read of shared state without reading it again (docs/production.md "Shared state"). */
export const SHARED_STATE_MAX_AGE_MS = 5000;
/** Entries one cache holds; the oldest go first beyond this. */
export const READ_CACHE_MAX_ENTRIES = 100_000;

export interface ReadCacheOptions {
  /** An entry is read again once it is this old (counted from when its read started). */
  maxAgeMs: number;
  now: () => number;
  maxEntries?: number;
}

interface Entry<V> {
  value: Promise<V>;
  startedAt: number;
  pending: boolean;
  /** For `peek`: what the read answered, or while it runs, what the entry it refreshes held. */
  settled?: { value: V };
}

/**
 * A node's copy of shared state it reads often (schemas, triggers, hooks, quota limits): each value is read from
 * the store once and used until it is `maxAgeMs` old, or until `invalidate` drops it (a change notice from the node
 * that made the change: src/cluster/port.ts). Absent values (a device without a schema) are kept like any other.
 *
 * A read under way when its key is invalidated is never kept: the entry it would fill is gone, so the next `get`
 * reads again and cannot pick up a value older than the change. A failed read is not kept either.
 */
export function createReadCache<V>({ maxAgeMs, now, maxEntries = READ_CACHE_MAX_ENTRIES }: ReadCacheOptions) {
  const entries = new Map<string, Entry<V>>();
  const fresh = (entry: Entry<V> | undefined): entry is Entry<V> => entry !== undefined && now() - entry.startedAt < maxAgeMs;

  function load(key: string, read: () => Promise<V>): Entry<V> {
    const entry: Entry<V> = { value: read(), startedAt: now(), pending: true, settled: entries.get(key)?.settled };
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    entry.value.then(
      (value) => {
        entry.settled = { value };
        entry.pending = false;
      },
      () => {
        entry.pending = false;
        if (entries.get(key) === entry) entries.delete(key);
      },
    );
    return entry;
  }

  return {
    /** The value of `key`: the copy while it is fresh, else what `read` answers. */
    get(key: string, read: () => Promise<V>): Promise<V> {
      const entry = entries.get(key);
      return fresh(entry) ? entry.value : load(key, read).value;
    },

    /**
     * The copy of `key` now, without waiting: undefined when there is none yet. A copy past its age is still
     * answered while it is read again; a missing one is read. For paths that cannot wait (the broker's).
     */
    peek(key: string, read: () => Promise<V>): { value: V } | undefined {
      const entry = entries.get(key);
      if (!entry?.pending && !fresh(entry)) load(key, read).value.catch(() => undefined);
      return entry?.settled;
    },

    invalidate(key: string): void {
      entries.delete(key);
    },

    clear(): void {
      entries.clear();
    },
  };
}

export type ReadCache<V> = ReturnType<typeof createReadCache<V>>;
