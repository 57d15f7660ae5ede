import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';

/** Permission bits that let the group or others read, write or enter. */
const GROUP_OR_OTHERS = 0o077;

/**
 * DATA_DIR, made 0700 when the service makes it (every file the service makes in it is 0600: the SQLite databases and
 * their -wal and -shm files, the admin token, the signing and credential keys). A directory or file that already
 * exists keeps its mode, with a warning when the group or others may read it (issue 20 §1): it holds the registry,
 * and the keys that make its digests worth anything.
 */
export function prepareDataDir(dataDir: string, logger: Pick<Logger, 'warn'>): void {
  const made = mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (made !== undefined) return;
  const open = [dataDir, ...readdirSync(dataDir).map((name) => join(dataDir, name))].filter((path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat !== undefined && (stat.isFile() || stat.isDirectory()) && (stat.mode & GROUP_OR_OTHERS) !== 0;
  });
  if (open.length > 0) {
    logger.warn({ dataDir, paths: open }, 'DATA_DIR or files in it can be read by the group or others: chmod 700 the directory and 600 its files');
  }
}
