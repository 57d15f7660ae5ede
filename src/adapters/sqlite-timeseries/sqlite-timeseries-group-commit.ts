interface Waiting<T> {
  readonly item: T;
  resolve(): void;
  reject(err: unknown): void;
}

export interface GroupCommit<T> {
  /** Resolves once `item` is committed and durable, together with every item submitted in the same turn of the event loop. */
  submit(item: T): Promise<void>;
  /** Commits what is waiting now, synchronously (before a close); their callers resolve once it is durable. */
  flush(): void;
}

/**
 * Group commit: writes submitted while the event loop handles one batch of I/O (say, ten HTTP requests that arrived
 * together) share one transaction, so they share its fsync, which costs far more than their inserts. `commit` runs
 * the transaction; `durable` (the WAL sync, sqlite-wal-sync.ts) resolves once it is on disk, off the event loop, and
 * only then do its writes resolve. Each write stays all or nothing: a failed transaction or sync rejects every write
 * in it. A single caller awaiting each write sees one transaction per write, one setImmediate later.
 */
export function createGroupCommit<T>(commit: (items: T[]) => void, durable: () => Promise<void>): GroupCommit<T> {
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
    durable().then(
      () => group.forEach((w) => w.resolve()),
      (err: unknown) => group.forEach((w) => w.reject(err)),
    );
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
