import { closeSync, fdatasync, openSync } from 'node:fs';

export interface WalSync {
  /** Resolves once an fdatasync of the WAL, started after this call, has returned. */
  (): Promise<void>;
  /** Closes the file descriptor once the syncs under way are done; a later call opens it again. */
  close(): void;
}

/**
 * Makes the commits of a WAL-mode database durable off the event loop (issue 12). A database opened with
 * synchronous=NORMAL commits by appending to its `-wal` file without an fsync; calling the returned function after
 * a commit resolves once an fdatasync of that file, started after the call, has returned: from then on the commit
 * survives a power loss exactly as with synchronous=FULL. Checkpoints stay safe on their own: with NORMAL, SQLite
 * syncs the WAL before each checkpoint and the database file after it (sqlite.org/pragma.html#pragma_synchronous).
 *
 * The sync runs on libuv's thread pool, so the thread goes on serving requests meanwhile, and calls made while one
 * sync runs share the next one. The WAL is opened once: SQLite truncates it and writes it from the start again, but
 * never replaces the file while a connection is open, and the callers keep theirs open for as long as they sync.
 */
export function createWalSync(databaseFile: string): WalSync {
  const walFile = `${databaseFile}-wal`;
  let fd: number | undefined;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;

  function syncOnce(): Promise<void> {
    return new Promise((resolve, reject) => {
      try {
        // The WAL exists from the first commit in WAL mode on; a caller syncs only after a commit.
        fd ??= openSync(walFile, 'r');
      } catch (err) {
        // No WAL: the last connection closed, checkpointing every commit into the database file and syncing it.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return resolve();
        return reject(err);
      }
      fdatasync(fd, (err) => (err ? reject(err) : resolve()));
    });
  }

  function start(): Promise<void> {
    const run = syncOnce().finally(() => {
      if (running === run) running = undefined;
    });
    running = run;
    return run;
  }

  const sync = (() => {
    // A sync that is already running may have started before the caller's commit: the caller needs the next one.
    if (queued) return queued;
    if (!running) return start();
    const next = running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return start();
      });
    queued = next;
    return next;
  }) as WalSync;
  sync.close = () => {
    // After the syncs under way: closing the descriptor under one would fail it.
    const release = () => {
      if (fd !== undefined && !running && !queued) {
        closeSync(fd);
        fd = undefined;
      }
    };
    const pending = queued ?? running;
    if (pending) pending.then(release, release);
    else release();
  };
  return sync;
}
