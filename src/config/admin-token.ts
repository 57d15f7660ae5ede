import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKey } from '../devices/credentials';

export const adminTokenFile = (dataDir: string) => join(dataDir, 'admin-token');

/**
 * ADMIN_TOKEN when set; otherwise the token kept in DATA_DIR/admin-token, made on first start (mode 0600).
 * `created` tells the caller to print it, once.
 */
export function resolveAdminToken(configured: string | undefined, dataDir: string): { token: string; created: boolean } {
  if (configured !== undefined) return { token: configured, created: false };
  const file = adminTokenFile(dataDir);
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), created: false };
  const token = generateKey(40);
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, created: true };
}

/** How a person gets the admin token to log in to the console: the file it is kept in, or the variable they set. */
export function adminLoginHint(configured: string | undefined, dataDir: string): string {
  return configured === undefined ? `cat ${adminTokenFile(dataDir)}` : 'the ADMIN_TOKEN you set';
}
