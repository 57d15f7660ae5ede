import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** One admin API call, built from the command line. */
export interface AdminCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** Sent as JSON. */
  body?: Record<string, unknown>;
  /** Sent as it is, with its type (an import file). */
  raw?: { contentType: string; text: string };
}

export class UsageError extends Error {}

export const USAGE = `usage: openpie <command> [options]

  devices create --project P --group G --alias A [--description D] [--livenessttl S] [--disabled]
                 [--deviceid ID] [--token T] [--secret S]   (credentials brought along; made when left out)
  devices import --file FILE [--format csv|json] [--apply]
                 (a dry run unless --apply: checks every row and prints what would be created)
  devices list [--project P] [--group G]
  devices show <deviceid>
  devices update <deviceid> [--alias A] [--group G] [--enabled true|false] [--banned true|false]
                            [--description D] [--livenessttl S]
  devices rotate-token <deviceid>     (a new token, printed this once: a lost one is never shown again)
  devices rotate-secret <deviceid>    (a new secret, the same way)
  devices delete <deviceid>
  devices connections <deviceid>      (live MQTT connections and recent connects, disconnects, refusals, on every node)
  devices kick <deviceid> [--reason R] (closes its MQTT sessions on every node; it may connect again)
  migrations show
  migrations complete                 (once every node runs this release: credentials left in plaintext become digests)
  tokens issue --project P [--ttl SECONDS] [--scope read|write] [--grants fleet,desired,...]
  tokens revoke <jti>                 (the token whose jti \`tokens issue\` printed is refused from now on)
  schema show|delete (<deviceid> | --project P --group G)
  schema set (<deviceid> | --project P --group G) (--json JSON | --file FILE)
  datatags show (<deviceid> | --project P --group G)
  datatags set (<deviceid> | --project P --group G) (--json JSON | --file FILE)   (a JSON array of datatags)
  datatags enable|disable|delete (<deviceid> | --project P --group G) <attr>
                 (delete: the tag and, for a device, its points: NETPIE's "delete feed")
  datatags clear <deviceid> <attr>    (every point of the tag; the tag stays: NETPIE's "clear feed")
  datatags point-set <deviceid> <attr> <timestamp> <value>   (edits or adds the point at that epoch-ms time)
  datatags point-delete <deviceid> <attr> <timestamp>
  triggers show|delete <deviceid>
  triggers set <deviceid> (--json JSON | --file FILE)
  hooks list --project P
  hooks show|delete --project P <name>
  hooks set --project P <name> (--json JSON | --file FILE)
  deliveries list --project P [--device D] [--limit N]
  operators create <name> --role viewer|operator|admin [--projects P1,P2]
                 (every project when --projects is left out; the key is printed this once)
  operators list
  operators show|delete <name>
  operators rotate-key <name>         (a new key, printed this once; the old one is refused at once)
  audit list [--since MS|ISO-TIME] [--limit N] [--actor NAME|bootstrap]
  applications create --project P [--name N] [--groups G1,G2]
                 (every group of the project when --groups is left out; the secret is printed this once)
  applications list [--project P]
  applications show|revoke <key>
  applications update <key> [--name N] [--groups G1,G2] [--enabled true|false]   (--groups '': every group)
  applications rotate <key>           (a new secret, printed this once; the old one is refused at once)
  quotas show --project P [--month YYYY-MM]
  quotas set --project P [--shadow-ops N] [--expression-runs N] [--trigger-runs N] [--messages N] [--api-calls N]
             (replaces every limit: one left out, or "unlimited", has none)
  retention show --project P
  retention set --project P <duration>   (30d, 12h, 1y ...: points written from now on expire this long after their time)
  retention clear --project P            (back to the service default, POINT_RETENTION)
  rollups show --project P
  rollups set --project P <period>=<retention> ...   (1m=30d 1h=unlimited: the project's roll-up tiers, replaced)
  rollups clear --project P              (removes the tiers and their points)
  shadows show <deviceid> [--at MS|ISO-TIME]   (the shadow, or as it was then)
  shadows query --project P [--filter EXPR] [--group G] [--fields a,b.c] [--sort FIELD[:desc]] [--limit N]
                [--cursor C]             (one page of the fleet query; --cursor: the page's "next")
  desired show <deviceid>             (the desired document and its delta)
  desired set <deviceid> (--json JSON | --file FILE) [--overwrite]
                 (a body {"data":{...}} merged into the desired document, or replacing it with --overwrite)

environment: OPENPIE_URL (default http://127.0.0.1:$PORT, PORT default 8080),
             ADMIN_TOKEN (default: the token kept in $DATA_DIR/admin-token),
             OPENPIE_KEY (an operator key; wins over ADMIN_TOKEN)`;

const OPTIONS = {
  project: { type: 'string' },
  group: { type: 'string' },
  alias: { type: 'string' },
  description: { type: 'string' },
  livenessttl: { type: 'string' },
  enabled: { type: 'string' },
  banned: { type: 'string' },
  disabled: { type: 'boolean' },
  deviceid: { type: 'string' },
  token: { type: 'string' },
  secret: { type: 'string' },
  format: { type: 'string' },
  apply: { type: 'boolean' },
  ttl: { type: 'string' },
  scope: { type: 'string' },
  grants: { type: 'string' },
  json: { type: 'string' },
  file: { type: 'string' },
  device: { type: 'string' },
  limit: { type: 'string' },
  month: { type: 'string' },
  'shadow-ops': { type: 'string' },
  'expression-runs': { type: 'string' },
  'trigger-runs': { type: 'string' },
  messages: { type: 'string' },
  'api-calls': { type: 'string' },
  role: { type: 'string' },
  projects: { type: 'string' },
  since: { type: 'string' },
  actor: { type: 'string' },
  name: { type: 'string' },
  groups: { type: 'string' },
  reason: { type: 'string' },
  at: { type: 'string' },
  filter: { type: 'string' },
  fields: { type: 'string' },
  sort: { type: 'string' },
  cursor: { type: 'string' },
  overwrite: { type: 'boolean' },
} as const;

/** The quotas of `quotas set`, by option. */
const QUOTA_OPTIONS = {
  'shadow-ops': 'shadowOps',
  'expression-runs': 'expressionRuns',
  'trigger-runs': 'triggerRuns',
  messages: 'messages',
  'api-calls': 'apiCalls',
} as const;

/** How the CLI reads `--file`; tests give their own. */
export interface CliIo {
  readFile(path: string): string;
}

const fileSystem: CliIo = { readFile: (path) => readFileSync(path, 'utf8') };

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

/** A limit, or null for `unlimited`. */
function limitOf(name: string, value: string | undefined): number | null | undefined {
  if (value === 'unlimited') return null;
  return integer(name, value);
}

/** The JSON body of `--json` or `--file`, exactly one of them: a JSON object. */
function jsonBody(values: { json?: string; file?: string }, io: CliIo): Record<string, unknown> {
  const parsed = jsonValue(values, io);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('the body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** The JSON of `--json` or `--file`, exactly one of them, whatever it holds. */
function jsonValue(values: { json?: string; file?: string }, io: CliIo): unknown {
  if ((values.json === undefined) === (values.file === undefined)) throw new UsageError('give the body with --json or --file, one of them');
  let text: string;
  try {
    text = values.json ?? io.readFile(values.file!);
  } catch (err) {
    throw new UsageError(`--file ${values.file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${values.json !== undefined ? '--json' : `--file ${values.file}`} is not valid JSON: ${(err as Error).message}`);
  }
  return parsed;
}

const enc = encodeURIComponent;

/** `--projects p1,p2` or `--groups g1,g2` as a list; `''` is the empty list. */
const listOf = (value: string | undefined) => value?.split(',').map((p) => p.trim()).filter((p) => p !== '');

/** An import file as it is: CSV (`.csv` or `--format csv`) or JSON (`{"devices":[…]}`), checked by the service. */
function importFile(values: { file?: string; format?: string }, io: CliIo): { contentType: string; text: string } {
  const file = required('file', values.file);
  const format = values.format ?? (/\.csv$/i.test(file) ? 'csv' : 'json');
  if (format !== 'csv' && format !== 'json') throw new UsageError('--format must be csv or json');
  let text: string;
  try {
    text = io.readFile(file);
  } catch (err) {
    throw new UsageError(`--file ${file}: ${(err as Error).message}`);
  }
  return { contentType: format === 'csv' ? 'text/csv' : 'application/json', text };
}

/** Turns argv (without node and the script) into the admin API call it stands for. */
export function parseCommand(argv: string[], io: CliIo = fileSystem): AdminCall {
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
          deviceid: v.deviceid,
          token: v.token,
          secret: v.secret,
        }),
      };
    case 'devices import':
      return { method: 'POST', path: `/v2/admin/devices/import${v.apply ? '' : '?dryRun=true'}`, raw: importFile(v, io) };
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
    case 'devices rotate-secret':
      return { method: 'POST', path: `${needId()}/secret` };
    case 'migrations show':
      return { method: 'GET', path: '/v2/admin/migrations' };
    case 'migrations complete':
      return { method: 'POST', path: '/v2/admin/migrations/credential-digests' };
    case 'devices delete':
      return { method: 'DELETE', path: needId() };
    case 'devices connections':
      return { method: 'GET', path: `${needId()}/connections` };
    case 'devices kick':
      return { method: 'POST', path: `${needId()}/kick`, body: defined({ reason: v.reason }) };
    case 'tokens issue':
      return {
        method: 'POST',
        path: '/v2/admin/tokens',
        body: defined({ projectid: required('project', v.project), ttl: integer('ttl', v.ttl), scope: v.scope, grants: listOf(v.grants) }),
      };
    case 'tokens revoke':
      if (id === undefined || rest.length > 0) throw new UsageError(`${noun} ${verb} takes exactly one <jti>`);
      return { method: 'DELETE', path: `/v2/admin/tokens/${enc(id)}` };
    case 'schema show':
    case 'schema set':
    case 'schema delete': {
      const group = v.project !== undefined || v.group !== undefined;
      if (group && id !== undefined) throw new UsageError(`${noun} ${verb} takes a <deviceid> or --project and --group, not both`);
      const path = group
        ? `/v2/admin/projects/${enc(required('project', v.project))}/groups/${enc(required('group', v.group))}/schema`
        : `${needId()}/schema`;
      if (verb === 'show') return { method: 'GET', path };
      if (verb === 'delete') return { method: 'DELETE', path };
      return { method: 'PUT', path, body: jsonBody(v, io) };
    }
    case 'datatags show':
    case 'datatags set':
    case 'datatags enable':
    case 'datatags disable':
    case 'datatags delete':
    case 'datatags clear':
    case 'datatags point-set':
    case 'datatags point-delete':
      return datatagCall(verb, v, [id, ...rest].filter((p) => p !== undefined), io);
    case 'triggers show':
      return { method: 'GET', path: `${needId()}/triggers` };
    case 'triggers set':
      return { method: 'PUT', path: `${needId()}/triggers`, body: jsonBody(v, io) };
    case 'triggers delete':
      return { method: 'DELETE', path: `${needId()}/triggers` };
    case 'hooks list':
      return { method: 'GET', path: `/v2/admin/projects/${enc(required('project', v.project))}/hooks` };
    case 'hooks show':
    case 'hooks set':
    case 'hooks delete': {
      if (id === undefined || rest.length > 0) throw new UsageError(`${noun} ${verb} takes exactly one <name>`);
      const path = `/v2/admin/projects/${enc(required('project', v.project))}/hooks/${enc(id)}`;
      if (verb === 'show') return { method: 'GET', path };
      if (verb === 'delete') return { method: 'DELETE', path };
      return { method: 'PUT', path, body: jsonBody(v, io) };
    }
    case 'deliveries list': {
      const query = new URLSearchParams(defined({ deviceid: v.device, limit: v.limit === undefined ? undefined : String(integer('limit', v.limit)) }) as Record<string, string>);
      return { method: 'GET', path: `/v2/admin/projects/${enc(required('project', v.project))}/deliveries${query.size > 0 ? `?${query}` : ''}` };
    }
    case 'operators create':
    case 'operators show':
    case 'operators delete':
    case 'operators rotate-key': {
      if (id === undefined || rest.length > 0) throw new UsageError(`${noun} ${verb} takes exactly one <name>`);
      const path = `/v2/admin/operators/${enc(id)}`;
      if (verb === 'show') return { method: 'GET', path };
      if (verb === 'delete') return { method: 'DELETE', path };
      if (verb === 'rotate-key') return { method: 'POST', path: `${path}/key` };
      const projects = listOf(v.projects);
      return { method: 'POST', path: '/v2/admin/operators', body: defined({ name: id, role: required('role', v.role), projects }) };
    }
    case 'operators list':
      return { method: 'GET', path: '/v2/admin/operators' };
    case 'audit list': {
      const limit = v.limit === undefined ? undefined : String(integer('limit', v.limit));
      const query = new URLSearchParams(defined({ since: v.since, limit, actor: v.actor }) as Record<string, string>);
      return { method: 'GET', path: `/v2/admin/audit${query.size > 0 ? `?${query}` : ''}` };
    }
    case 'applications create':
      return { method: 'POST', path: '/v2/admin/applications', body: defined({ projectid: required('project', v.project), name: v.name, groups: listOf(v.groups) }) };
    case 'applications list':
      return { method: 'GET', path: `/v2/admin/applications${v.project === undefined ? '' : `?projectid=${enc(v.project)}`}` };
    case 'applications show':
    case 'applications update':
    case 'applications rotate':
    case 'applications revoke': {
      if (id === undefined || rest.length > 0) throw new UsageError(`${noun} ${verb} takes exactly one <key>`);
      const path = `/v2/admin/applications/${enc(id)}`;
      if (verb === 'show') return { method: 'GET', path };
      if (verb === 'revoke') return { method: 'DELETE', path };
      if (verb === 'rotate') return { method: 'POST', path: `${path}/secret` };
      return { method: 'PATCH', path, body: defined({ name: v.name, groups: listOf(v.groups), enabled: bool('enabled', v.enabled) }) };
    }
    case 'quotas show': {
      const query = v.month === undefined ? '' : `?month=${enc(v.month)}`;
      return { method: 'GET', path: `/v2/admin/projects/${enc(required('project', v.project))}/quotas${query}` };
    }
    case 'quotas set': {
      const body: Record<string, unknown> = {};
      for (const [option, quota] of Object.entries(QUOTA_OPTIONS)) {
        const limit = limitOf(option, v[option as keyof typeof QUOTA_OPTIONS]);
        if (limit !== undefined) body[quota] = limit;
      }
      return { method: 'PUT', path: `/v2/admin/projects/${enc(required('project', v.project))}/quotas`, body };
    }
    case 'retention show':
    case 'retention set':
    case 'retention clear': {
      const path = `/v2/admin/projects/${enc(required('project', v.project))}/retention`;
      if (verb === 'show') return { method: 'GET', path };
      if (verb === 'clear') return { method: 'DELETE', path };
      if (id === undefined || rest.length > 0) throw new UsageError('retention set takes exactly one <duration>, such as 30d');
      // Checked by the service, which names the units it takes; a bare number is ms there too.
      return { method: 'PUT', path, body: { retention: id } };
    }
    case 'rollups show':
    case 'rollups set':
    case 'rollups clear': {
      const path = `/v2/admin/projects/${enc(required('project', v.project))}/rollups`;
      if (verb === 'show') return { method: 'GET', path };
      if (verb === 'clear') return { method: 'DELETE', path };
      const tiers = [id, ...rest].filter((tier): tier is string => tier !== undefined).map((tier) => {
        const [period, retention, ...more] = tier.split('=');
        if (!period || !retention || more.length > 0) throw new UsageError(`rollups set takes tiers as <period>=<retention>, such as 1h=1y (got "${tier}")`);
        return { period, retention };
      });
      if (tiers.length === 0) throw new UsageError('rollups set takes one or more <period>=<retention>, such as 1h=1y');
      // Checked by the service, which names the periods and durations it takes.
      return { method: 'PUT', path, body: { tiers } };
    }
    case 'shadows show':
      return { method: 'GET', path: `${needId()}/shadow${v.at === undefined ? '' : `?at=${enc(v.at)}`}` };
    case 'shadows query':
      return {
        method: 'POST',
        path: `/v2/admin/projects/${enc(required('project', v.project))}/shadows/query`,
        body: defined({
          filter: v.filter,
          groupid: v.group,
          fields: listOf(v.fields),
          sort: sortOf(v.sort),
          limit: integer('limit', v.limit),
          cursor: v.cursor,
        }),
      };
    case 'desired show':
      return { method: 'GET', path: `${needId()}/shadow/desired` };
    case 'desired set':
      return { method: v.overwrite ? 'POST' : 'PUT', path: `${needId()}/shadow/desired`, body: jsonBody(v, io) };
    default:
      throw new UsageError(noun === undefined ? 'no command given' : `unknown command: ${positionals.join(' ')}`);
  }
}

/** `--sort battery` or `--sort battery:desc` as the fleet query's sort. */
function sortOf(value: string | undefined): { field: string; order?: string } | undefined {
  if (value === undefined) return undefined;
  const at = value.lastIndexOf(':');
  const [field, order] = at > 0 && ['asc', 'desc'].includes(value.slice(at + 1)) ? [value.slice(0, at), value.slice(at + 1)] : [value, undefined];
  return defined({ field, order }) as { field: string; order?: string };
}

/** `datatags <verb>`: a device's own tags (`<deviceid>` first) or a group's default (`--project`, `--group`). */
function datatagCall(verb: string, v: { project?: string; group?: string; json?: string; file?: string }, args: string[], io: CliIo): AdminCall {
  const group = v.project !== undefined || v.group !== undefined;
  if (group && ['clear', 'point-set', 'point-delete'].includes(verb)) throw new UsageError(`datatags ${verb} acts on a device's points: give a <deviceid>`);
  const arity: Record<string, number> = { show: 0, set: 0, enable: 1, disable: 1, delete: 1, clear: 1, 'point-set': 3, 'point-delete': 2 };
  const deviceid = group ? undefined : args[0];
  const rest = group ? args : args.slice(1);
  if ((!group && deviceid === undefined) || rest.length !== arity[verb]) {
    throw new UsageError(`datatags ${verb} takes ${group ? '' : '<deviceid> '}${['', '<attr>', '<attr> <timestamp>', '<attr> <timestamp> <value>'][arity[verb]]}`.trim());
  }
  const base = group
    ? `/v2/admin/projects/${enc(required('project', v.project))}/groups/${enc(required('group', v.group))}/datatags`
    : `/v2/admin/devices/${enc(deviceid!)}/datatags`;
  const [attr = '', timestamp = '', value = ''] = rest;
  switch (verb) {
    case 'show':
      return { method: 'GET', path: base };
    case 'set': {
      const list = jsonValue(v, io);
      if (!Array.isArray(list)) throw new UsageError('the body must be a JSON array of datatags');
      return { method: 'PUT', path: base, raw: { contentType: 'application/json', text: JSON.stringify(list) } };
    }
    case 'enable':
    case 'disable':
      return { method: 'PATCH', path: `${base}/${enc(attr)}`, body: { enabled: verb === 'enable' } };
    case 'delete':
      return { method: 'DELETE', path: `${base}/${enc(attr)}` };
    case 'clear':
      return { method: 'POST', path: `${base}/${enc(attr)}/clear` };
    case 'point-set': {
      // A number stays a number; anything else goes as text, which the service casts to the tag's type.
      const number = Number(value);
      return { method: 'PUT', path: `${base}/${enc(attr)}/points/${enc(timestamp)}`, body: { value: value.trim() !== '' && Number.isFinite(number) ? number : value } };
    }
    default:
      return { method: 'DELETE', path: `${base}/${enc(attr)}/points/${enc(timestamp)}` };
  }
}
