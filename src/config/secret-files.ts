import { readFileSync } from 'node:fs';
import { Variable } from './variable';

/**
 * Secrets may come from a file as well as from the environment (issue 21): `ADMIN_TOKEN_FILE=/run/secrets/admin`
 * instead of `ADMIN_TOKEN=...`, so a secret never sits in `docker inspect`, `/proc/<pid>/environ` or a child's argv.
 * The table marks such a variable with `secret(v(...))`; its file variant is the name with `_FILE` after it.
 */
export const fileVariableOf = (name: string) => `${name}_FILE`;

/** Marks a row of variables.ts as a secret: it has a `_FILE` variant and refuses the placeholders below. */
export function secret<A>(variable: Variable<A>): Variable<A> {
  return { ...variable, secret: true };
}

/**
 * What example files used to ship as secrets (`change-me-admin-token-0123456789`, `change-me-backbone-password` in the
 * docker-compose.yml before issue 21): a service started with one is open to anyone who read the example, so any
 * secret starting with `change-me` (in any case) stops the start.
 */
export const isPlaceholderSecret = (value: string) => value.trim().toLowerCase().startsWith('change-me');

/** The file's content is the value, less one trailing newline (what `echo secret > file` adds). */
const withoutTrailingNewline = (text: string) => text.replace(/\r?\n$/, '');

/**
 * The environment with each secret's `X_FILE` read into `X`, and one line per fault: both set, a file that cannot be
 * read (the line names the variable and the path, never what the file holds) or an empty one (an empty secret file
 * would otherwise silently mean "no secret", e.g. an open /metrics).
 */
export function readSecretFiles(
  variables: readonly Variable<unknown>[],
  env: NodeJS.ProcessEnv,
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { env: NodeJS.ProcessEnv; problems: string[] } {
  const resolved: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  const isSet = (name: string) => env[name] !== undefined && env[name] !== '';
  for (const { name } of variables.filter((v) => v.secret)) {
    const fileName = fileVariableOf(name);
    if (!isSet(fileName)) continue;
    const path = env[fileName] as string;
    if (isSet(name)) {
      problems.push(`${name}, ${fileName}: set one or the other, not both`);
      continue;
    }
    try {
      const value = withoutTrailingNewline(read(path));
      if (value === '') problems.push(`${fileName}: ${path} is empty`);
      else resolved[name] = value;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      problems.push(`${fileName}: cannot read ${path} (${code})`);
    }
  }
  return { env: resolved, problems };
}

/** One line per secret set to a placeholder; the line names the variable, never the value. */
export function placeholderSecrets(variables: readonly Variable<unknown>[], env: NodeJS.ProcessEnv): string[] {
  return variables
    .filter((v) => v.secret && env[v.name] !== undefined && isPlaceholderSecret(env[v.name] as string))
    .map((v) => `${v.name}: starts with "change-me", a placeholder from an example: set a secret of your own`);
}

/** A decoding line about a secret shows no part of the value (`ADMIN_TOKEN: must be ... (got "...")`). */
export function hideSecretValues(variables: readonly Variable<unknown>[], problems: readonly string[]): string[] {
  const secrets = variables.filter((v) => v.secret).map((v) => `${v.name}: `);
  return problems.map((line) => (secrets.some((prefix) => line.startsWith(prefix)) ? line.replace(/ \(got .*\)$/, ' (value not shown)') : line));
}
