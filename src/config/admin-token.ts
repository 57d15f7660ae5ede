import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKey } from '../devices/credentials';

export const adminTokenFile = (dataDir: string) => join(dataDir, 'admin-token');

/** Characters of an admin token the service makes, and below which a configured one draws a warning at start. */
export const ADMIN_TOKEN_ADVISED_LENGTH = 32;

/**
 * ADMIN_TOKEN when set; otherwise the token kept in DATA_DIR/admin-token, made on first start (mode 0600).
 * `created` tells the caller to print it, once.
 */
export function resolveAdminToken(configured: string | undefined, dataDir: string): { token: string; created: boolean } {
  if (configured !== undefined) return { token: configured, created: false };
  const file = adminTokenFile(dataDir);
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), created: false };
  const token = generateKey(40); // at least ADMIN_TOKEN_ADVISED_LENGTH
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, created: true };
}

/**
 * Tells the person starting the service the token just made for them, once, on stderr: not on stdout, where the
 * structured (pino) log goes and is collected, kept and shipped (issue 20 §6). Later starts point to the file.
 */
export function announceGeneratedAdminToken(dataDir: string, token: string, write = (text: string) => process.stderr.write(text)): void {
  write(`admin token (kept in ${adminTokenFile(dataDir)}, shown only now): ${token}\n`);
}

/** How a person gets the admin token to log in to the console: the file it is kept in, or the variable they set. */
export function adminLoginHint(configured: string | undefined, dataDir: string): string {
  return configured === undefined ? `cat ${adminTokenFile(dataDir)}` : 'the ADMIN_TOKEN you set';
}
