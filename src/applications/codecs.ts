import * as t from 'io-ts';
import { closed, intStringBetween, ScopeId, stringMatching } from '../core/codecs';

/** At most this many groups per key; more is a project-wide key (no groups). */
export const MAX_GROUPS = 100;

/** A key as the service makes it (randomUUID): lowercase, so that one key has one spelling in paths and usernames. */
export const ApplicationKey = stringMatching('application key', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  'expected an application key: a UUID in lowercase');

const NAME_TEXT = /^[^\u0000-\u001f\u007f]{0,128}$/u;

/** For people: 0-128 characters without control characters, valid Unicode; '' when a new key is given none. */
export const ApplicationName = new t.Type<string, string, unknown>(
  'application name',
  (u): u is string => typeof u === 'string' && NAME_TEXT.test(u) && u.isWellFormed(),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected a string');
    if (!NAME_TEXT.test(u)) return t.failure(u, c, 'expected at most 128 characters without control characters');
    return u.isWellFormed() ? t.success(u) : t.failure(u, c, 'expected valid Unicode (no lone surrogates)');
  },
  t.identity,
);

/** Groups of the key's project, each named once; empty: every group of the project, present and future. */
export const ApplicationGroups = new t.Type<string[], string[], unknown>(
  'groups',
  (u): u is string[] => Array.isArray(u) && u.every(ScopeId.is),
  (u, c) => {
    if (!Array.isArray(u)) return t.failure(u, c, `expected an array of at most ${MAX_GROUPS} group ids`);
    if (u.length > MAX_GROUPS) return t.failure(u, c, `expected at most ${MAX_GROUPS} groups (none: every group of the project)`);
    const errors: t.Errors = [];
    u.forEach((group, i) => {
      const r = ScopeId.validate(group, t.appendContext(c, String(i), ScopeId, group));
      if (r._tag === 'Left') errors.push(...r.left);
      else if (u.indexOf(group) !== i) errors.push({ value: group, context: t.appendContext(c, String(i), ScopeId, group), message: `group "${group}" is named twice` });
    });
    return errors.length > 0 ? t.failures(errors) : t.success([...u] as string[]);
  },
  t.identity,
);

/** `POST /v2/admin/applications`: the key and its secret are made by the service, never given. */
export const CreateApplicationRequest = closed({ projectid: ScopeId }, { name: ApplicationName, groups: ApplicationGroups });
export type CreateApplicationRequest = t.TypeOf<typeof CreateApplicationRequest>;

/** `PATCH /v2/admin/applications/:key`: the project never changes (a key of another project is another key). */
export const UpdateApplicationRequest = closed({}, { name: ApplicationName, groups: ApplicationGroups, enabled: t.boolean });
export type UpdateApplicationRequest = t.TypeOf<typeof UpdateApplicationRequest>;

/** `GET /v2/admin/applications`: of one project, or of every project the caller reaches; a page as the devices list has. */
export const ApplicationListQuery = closed({}, {
  projectid: ScopeId,
  limit: intStringBetween(1, 1000),
  offset: intStringBetween(0, 1_000_000_000),
});
export type ApplicationListQuery = t.TypeOf<typeof ApplicationListQuery>;
