import type { JWK } from 'jose';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { SigningKeyStore } from '../../tokens/port';

/**
 * The user-token signing key in a file of its own (USER_TOKEN_KEY_FILE, mode 0600), for STORE=sqlite: a JWK, as
 * the service has always written it. Creating uses O_EXCL, so of two processes starting at once on a new file one
 * key wins and both read it; a rotation writes a new file beside it and renames it over the old one.
 */
export function createFileSigningKeyStore(keyFile: string): SigningKeyStore {
  const read = (): JWK | undefined => (existsSync(keyFile) ? (JSON.parse(readFileSync(keyFile, 'utf8')) as JWK) : undefined);
  return {
    async read() {
      return read();
    },
    async create(key) {
      mkdirSync(dirname(keyFile), { recursive: true });
      try {
        writeFileSync(keyFile, JSON.stringify(key), { mode: 0o600, flag: 'wx' });
        return key;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        return read()!;
      }
    },
    async replace(key) {
      mkdirSync(dirname(keyFile), { recursive: true });
      const next = `${keyFile}.${process.pid}.new`;
      writeFileSync(next, JSON.stringify(key), { mode: 0o600 });
      renameSync(next, keyFile);
    },
  };
}
