interface Waiting<T> {
  readonly item: T;
  resolve(): void;
  reject(err: unknown): void;
}

export interface GroupCommit<T> {
  /** Resolves once `item` is committed, together with every item submitted in the same turn of the event loop. */
  submit(item: T): Promise<void>;
  /** Commits what is waiting now, synchronously (before a close). */
  flush(): void;
}

/**
 * Group commit: writes submitted while the event loop handles one batch of I/O (say, ten HTTP requests that arrived
 * together) share one transaction, so they share its fsync, which costs far more than their inserts. Each write
 * still resolves only after its commit, and stays all or nothing: a failed transaction rejects every write in it.
 * A single caller awaiting each write sees one transaction per write, as before, one setImmediate later.
 */
export function createGroupCommit<T>(commit: (items: T[]) => void): GroupCommit<T> {
  let waiting: Waiting<T>[] = [];

  const flush = () => {
    if (waiting.length === 0) return;
    const group = waiting;
    waiting = [];
    try {
      commit(group.map((w) => w.item));
    } catch (err) {
      group.forEach((w) => w.reject(err));
      return;
    }
    group.forEach((w) => w.resolve());
  };

  return {
    submit(item) {
      return new Promise((resolve, reject) => {
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ item, resolve, reject });
      });
    },
    flush,
  };
}
