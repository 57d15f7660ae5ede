import * as t from 'io-ts';
import { closed, intStringBetween, ScopeId, stringMatching } from '../core/codecs';

/** What a role may do grows with its rank: `viewer` reads, `operator` also changes, `admin` also manages people and keys. */
export const Role = t.keyof({ viewer: null, operator: null, admin: null });
export type Role = t.TypeOf<typeof Role>;

/** No `.`: an operator key is `opk.<name>.<secret>` (service.ts), so the name is read back from the key. */
export const OperatorName = stringMatching('operator name', /^[a-z0-9][a-z0-9_-]{0,63}$/,
  'expected 1-64 characters of a-z 0-9 _ - starting with a letter or digit');

/** `*`: every project, present and future; otherwise the projects named (at least one). */
export const ProjectScope = t.union([
  t.literal('*'),
  t.refinement(t.array(ScopeId), (ids) => ids.length > 0 && ids.length <= 100, 'a list of 1 to 100 project ids'),
]);
export type ProjectScope = t.TypeOf<typeof ProjectScope>;

/** `projects` is `*` when absent; an `admin` always has every project (it can make itself any operator anyway). */
export const CreateOperatorRequest = closed({ name: OperatorName, role: Role }, { projects: ProjectScope });
export type CreateOperatorRequest = t.TypeOf<typeof CreateOperatorRequest>;

/** An operator as stored: its key only as a keyed digest (devices/credential-key.ts). */
export interface OperatorRecord {
  readonly name: string;
  readonly role: Role;
  readonly projects: ProjectScope;
  /** ms since the epoch. */
  readonly created: number;
  readonly keyDigest: string;
}

/** Milliseconds since the epoch, or an ISO 8601 time (`2025-01-31T00:00:00Z`). */
const Instant = new t.Type<number, string, unknown>(
  'time',
  (u): u is number => typeof u === 'number',
  (u, c) => {
    const n = typeof u !== 'string' ? NaN : /^\d{1,15}$/.test(u) ? Number(u) : Date.parse(u);
    return Number.isFinite(n) ? t.success(n) : t.failure(u, c, 'expected milliseconds since the epoch or an ISO 8601 time');
  },
  String,
);

/** `GET /v2/admin/audit`: newest first, `limit` (100 when absent) entries at or after `since`, of one `actor` if given. */
export const AuditQuery = closed({}, { since: Instant, limit: intStringBetween(1, 1000), actor: t.string });
export type AuditQuery = t.TypeOf<typeof AuditQuery>;
