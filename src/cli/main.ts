#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { adminTokenFile } from '../config/admin-token';
import { parseCommand, USAGE, UsageError } from './commands';

/** The admin CLI: each command is one call to the admin API of a running service; it prints the JSON answer. */
async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help')) {
    process.stdout.write(`${USAGE}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const call = parseCommand(argv);
  const baseUrl = process.env.OPENPIE_URL ?? `http://127.0.0.1:${process.env.PORT ?? '8080'}`;
  // An operator key (OPENPIE_KEY) acts within its role and projects; ADMIN_TOKEN is the bootstrap key.
  const token = process.env.OPENPIE_KEY || process.env.ADMIN_TOKEN || readTokenFile(process.env.DATA_DIR ?? './data');
  const body = call.raw ?? (call.body && { contentType: 'application/json', text: JSON.stringify(call.body) });
  const res = await fetch(baseUrl + call.path, {
    method: call.method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': body.contentType } : {}) },
    body: body ? body.text : undefined,
  });
  const text = await res.text();
  const out = text === '' ? JSON.stringify({ status: res.status }) : text;
  (res.ok ? process.stdout : process.stderr).write(`${out}\n`);
  return res.ok ? 0 : 1;
}

function readTokenFile(dataDir: string): string {
  const file = adminTokenFile(dataDir);
  if (!existsSync(file)) throw new UsageError(`no ADMIN_TOKEN set and no ${file}`);
  return readFileSync(file, 'utf8').trim();
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof UsageError ? `${err.message}\n\n${USAGE}` : `openpie: ${(err as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
