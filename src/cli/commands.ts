import { parseArgs } from 'node:util';

/** One admin API call, built from the command line. */
export interface AdminCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

export class UsageError extends Error {}

export const USAGE = `usage: openpie <command> [options]

  devices create --project P --group G --alias A [--description D] [--livenessttl S] [--disabled]
  devices list [--project P] [--group G]
  devices show <deviceid>
  devices update <deviceid> [--alias A] [--group G] [--enabled true|false] [--banned true|false]
                            [--description D] [--livenessttl S]
  devices rotate-token <deviceid>
  devices delete <deviceid>
  tokens issue --project P [--ttl SECONDS]

environment: OPENPIE_URL (default http://127.0.0.1:$PORT, PORT default 8080),
             ADMIN_TOKEN (default: the token kept in $DATA_DIR/admin-token)`;

const OPTIONS = {
  project: { type: 'string' },
  group: { type: 'string' },
  alias: { type: 'string' },
  description: { type: 'string' },
  livenessttl: { type: 'string' },
  enabled: { type: 'string' },
  banned: { type: 'string' },
  disabled: { type: 'boolean' },
  ttl: { type: 'string' },
} as const;

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

function bool(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new UsageError(`--${name} must be true or false`);
  return value === 'true';
}

function required(name: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`--${name} is required`);
  return value;
}

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Turns argv (without node and the script) into the admin API call it stands for. */
export function parseCommand(argv: string[]): AdminCall {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values: v, positionals } = parsed;
  const [noun, verb, id, ...rest] = positionals;
  const needId = () => {
    if (id === undefined || rest.length > 0) throw new UsageError(`${noun} ${verb} takes exactly one <deviceid>`);
    return `/v2/admin/devices/${encodeURIComponent(id)}`;
  };
  switch (`${noun} ${verb}`) {
    case 'devices create':
      return {
        method: 'POST',
        path: '/v2/admin/devices',
        body: defined({
          projectid: required('project', v.project),
          groupid: required('group', v.group),
          alias: required('alias', v.alias),
          description: v.description,
          livenessttl: integer('livenessttl', v.livenessttl),
          enabled: v.disabled ? false : undefined,
        }),
      };
    case 'devices list': {
      const query = new URLSearchParams(defined({ projectid: v.project, groupid: v.group }) as Record<string, string>);
      return { method: 'GET', path: `/v2/admin/devices${query.size > 0 ? `?${query}` : ''}` };
    }
    case 'devices show':
      return { method: 'GET', path: needId() };
    case 'devices update':
      return {
        method: 'PATCH',
        path: needId(),
        body: defined({
          alias: v.alias,
          groupid: v.group,
          enabled: bool('enabled', v.enabled),
          banned: bool('banned', v.banned),
          description: v.description,
          livenessttl: integer('livenessttl', v.livenessttl),
        }),
      };
    case 'devices rotate-token':
      return { method: 'POST', path: `${needId()}/token` };
    case 'devices delete':
      return { method: 'DELETE', path: needId() };
    case 'tokens issue':
      return {
        method: 'POST',
        path: '/v2/admin/tokens',
        body: defined({ projectid: required('project', v.project), ttl: integer('ttl', v.ttl) }),
      };
    default:
      throw new UsageError(noun === undefined ? 'no command given' : `unknown command: ${positionals.join(' ')}`);
  }
}
