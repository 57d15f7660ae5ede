import type { Context } from 'koa';
import { AppError } from '../core/errors';
import { ProjectScope, Role } from './codecs';

/** Who calls the admin API: the bootstrap ADMIN_TOKEN, or an operator by its key (http/admin-auth.ts puts it in ctx.state.caller). */
export type Caller =
  | { readonly kind: 'bootstrap' }
  | { readonly kind: 'operator'; readonly name: string; readonly role: Role; readonly projects: ProjectScope };

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** The bootstrap key is an admin of every project. */
export const roleOf = (caller: Caller): Role => (caller.kind === 'bootstrap' ? 'admin' : caller.role);
export const actorOf = (caller: Caller): string => (caller.kind === 'bootstrap' ? 'bootstrap' : caller.name);
export const hasRole = (caller: Caller, role: Role): boolean => RANK[roleOf(caller)] >= RANK[role];

/** True when the caller may act on every project (no filtering needed). */
export const hasEveryProject = (caller: Caller): boolean => caller.kind === 'bootstrap' || caller.projects === '*';

export const mayReach = (caller: Caller, projectid: string): boolean =>
  hasEveryProject(caller) || (caller.kind === 'operator' && caller.projects !== '*' && caller.projects.includes(projectid));

/**
 * The least role of each admin route (docs/operations.md "Operators and roles" has the same table). A route missing
 * here needs `admin`: a route someone adds is closed to operators and viewers until it is given a row. The routes
 * check the projects themselves (requireProject), since only they know which project a call is about.
 */
export const ROUTE_ROLES: Readonly<Record<string, Role>> = {
  'GET /v2/admin/service': 'viewer',
  'GET /v2/admin/me': 'viewer',
  'GET /v2/admin/projects': 'viewer',
  'GET /v2/admin/devices': 'viewer',
  'POST /v2/admin/devices': 'operator',
  'POST /v2/admin/devices/import': 'operator',
  'GET /v2/admin/devices/:deviceid': 'viewer',
  'PATCH /v2/admin/devices/:deviceid': 'operator',
  'DELETE /v2/admin/devices/:deviceid': 'operator',
  'POST /v2/admin/devices/:deviceid/token': 'operator',
  'POST /v2/admin/devices/:deviceid/secret': 'operator',
  'GET /v2/admin/devices/:deviceid/connections': 'viewer',
  'POST /v2/admin/devices/:deviceid/kick': 'operator',
  'GET /v2/admin/devices/:deviceid/shadow': 'viewer',
  'PUT /v2/admin/devices/:deviceid/shadow': 'operator',
  'GET /v2/admin/devices/:deviceid/shadow/desired': 'viewer',
  'PUT /v2/admin/devices/:deviceid/shadow/desired': 'operator',
  'POST /v2/admin/devices/:deviceid/shadow/desired': 'operator',
  'GET /v2/admin/devices/:deviceid/schema': 'viewer',
  'PUT /v2/admin/devices/:deviceid/schema': 'operator',
  'DELETE /v2/admin/devices/:deviceid/schema': 'operator',
  'GET /v2/admin/projects/:projectid/groups/:groupid/schema': 'viewer',
  'PUT /v2/admin/projects/:projectid/groups/:groupid/schema': 'operator',
  'DELETE /v2/admin/projects/:projectid/groups/:groupid/schema': 'operator',
  'GET /v2/admin/devices/:deviceid/datatags': 'viewer',
  'PUT /v2/admin/devices/:deviceid/datatags': 'operator',
  'PATCH /v2/admin/devices/:deviceid/datatags/:attr': 'operator',
  'DELETE /v2/admin/devices/:deviceid/datatags/:attr': 'operator',
  'POST /v2/admin/devices/:deviceid/datatags/:attr/clear': 'operator',
  'PUT /v2/admin/devices/:deviceid/datatags/:attr/points/:timestamp': 'operator',
  'DELETE /v2/admin/devices/:deviceid/datatags/:attr/points/:timestamp': 'operator',
  'GET /v2/admin/projects/:projectid/groups/:groupid/datatags': 'viewer',
  'PUT /v2/admin/projects/:projectid/groups/:groupid/datatags': 'operator',
  'PATCH /v2/admin/projects/:projectid/groups/:groupid/datatags/:attr': 'operator',
  'DELETE /v2/admin/projects/:projectid/groups/:groupid/datatags/:attr': 'operator',
  'GET /v2/admin/devices/:deviceid/triggers': 'viewer',
  'PUT /v2/admin/devices/:deviceid/triggers': 'operator',
  'DELETE /v2/admin/devices/:deviceid/triggers': 'operator',
  'GET /v2/admin/projects/:projectid/hooks': 'viewer',
  'GET /v2/admin/projects/:projectid/hooks/:name': 'viewer',
  'PUT /v2/admin/projects/:projectid/hooks/:name': 'operator',
  'DELETE /v2/admin/projects/:projectid/hooks/:name': 'operator',
  'GET /v2/admin/projects/:projectid/deliveries': 'viewer',
  'GET /v2/admin/projects/:projectid/quotas': 'viewer',
  'PUT /v2/admin/projects/:projectid/quotas': 'operator',
  'GET /v2/admin/projects/:projectid/retention': 'viewer',
  'PUT /v2/admin/projects/:projectid/retention': 'operator',
  'DELETE /v2/admin/projects/:projectid/retention': 'operator',
  'GET /v2/admin/projects/:projectid/rollups': 'viewer',
  'PUT /v2/admin/projects/:projectid/rollups': 'operator',
  'DELETE /v2/admin/projects/:projectid/rollups': 'operator',
  'GET /v2/admin/groups/:projectid/:groupid/messages': 'viewer',
  'POST /v2/admin/groups/:projectid/:groupid/messages': 'operator',
  'GET /v2/admin/applications': 'viewer',
  'POST /v2/admin/applications': 'operator',
  'POST /v2/admin/projects/:projectid/shadows/query': 'viewer',
  'GET /v2/admin/applications/:key': 'viewer',
  'PATCH /v2/admin/applications/:key': 'operator',
  'POST /v2/admin/applications/:key/secret': 'operator',
  'DELETE /v2/admin/applications/:key': 'operator',
  // A read-only user token of a project the caller reaches: the console's charts need one; the route asks `admin` for `scope: write`.
  'POST /v2/admin/tokens': 'viewer',
};

export const callerOf = (ctx: Context): Caller => {
  const caller = (ctx.state as { caller?: Caller }).caller;
  if (!caller) throw new Error('admin route reached without http/admin-auth.ts');
  return caller;
};

/** 403 ROLE_FORBIDDEN unless the caller's role is at least `role`. */
export function requireRole(caller: Caller, role: Role, what: string): void {
  if (!hasRole(caller, role)) throw new AppError('ROLE_FORBIDDEN', `${what} needs the role ${role} (yours: ${roleOf(caller)})`, { needs: role });
}

/** 403 PROJECT_FORBIDDEN unless the caller reaches `projectid`. */
export function requireProject(ctx: Context, projectid: string): void {
  if (!mayReach(callerOf(ctx), projectid)) {
    throw new AppError('PROJECT_FORBIDDEN', `project ${projectid} is not among your projects`, { projectid });
  }
}

/** Keeps what the caller's projects reach; everything for a caller of every project. */
export function withinProjects<T extends { projectid: string }>(ctx: Context, items: readonly T[]): T[] {
  const caller = callerOf(ctx);
  return hasEveryProject(caller) ? [...items] : items.filter((item) => mayReach(caller, item.projectid));
}

/**
 * Runs `projectOf` (a device look-up) only for a caller limited to some projects, then checks the project: callers of
 * every project keep the answers they had before operators existed (a schema or triggers of a device not registered).
 */
export async function requireProjectOf(ctx: Context, projectOf: () => Promise<string>): Promise<void> {
  if (!hasEveryProject(callerOf(ctx))) requireProject(ctx, await projectOf());
}
