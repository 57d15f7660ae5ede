import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { actorOf, Caller, callerOf, requireRole, roleOf, ROUTE_ROLES } from '../operators/access';
import { AuditEntry, AuditLog } from '../operators/port';

/** What @koa/router leaves in `ctx.matched`: every layer whose path matched, route layers with their methods. */
interface MatchedLayer {
  path: string | RegExp;
  methods: string[];
  captures(path: string): string[];
  params(path: string, captures: string[], params?: Record<string, string>): Record<string, string>;
}

/** Reads only: every other method changes something and is written to the audit log. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Routes that read through a POST (a query's body is too rich for a URL): not changes, not in the audit log. */
const READ_ROUTES = new Set(['POST /v2/admin/projects/:projectid/shadows/query']);

/** Ids an answer names besides the path's: a new device's `deviceid`, an operator's `name`. Never anything else of a body. */
const ANSWER_IDS = ['deviceid', 'projectid', 'groupid', 'name'] as const;

const APPLICATIONS = '/v2/admin/applications';

/** The route layer that answers the call (the first whose path and method match), as the admin routers declare it. */
function routeOf(ctx: Context): MatchedLayer | undefined {
  const matched = (ctx as unknown as { matched?: MatchedLayer[] }).matched ?? [];
  return matched.find((layer) => layer.methods.includes(ctx.method) && typeof layer.path === 'string');
}

function targetsOf(ctx: Context, route: MatchedLayer | undefined): Record<string, string> {
  const targets: Record<string, string> = route ? { ...route.params(ctx.path, route.captures(ctx.path), {}) } : {};
  const body = ctx.body;
  if (ctx.status < 300 && body && typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body)) {
    for (const id of ANSWER_IDS) {
      const value = (body as Record<string, unknown>)[id];
      if (typeof value === 'string' && targets[id] === undefined) targets[id] = value;
    }
    // An application's key is public (its MQTT username), unlike an operator's key, which is its secret.
    const key = (body as Record<string, unknown>).key;
    if (typeof route?.path === 'string' && route.path.startsWith(APPLICATIONS) && typeof key === 'string' && targets.key === undefined) targets.key = key;
  }
  return targets;
}

export interface AdminAccessDeps {
  audit: AuditLog;
  logger: Logger;
  now: () => number;
}

/**
 * After http/admin-auth.ts on every admin route: the caller's role must reach the route's (operators/access.ts
 * ROUTE_ROLES, `admin` for a route not listed), and every change, allowed or refused, is written to the audit log
 * once answered: who, when, what (method, route, path, ids), from where, with the status. A failed write to the log is
 * logged and counted against nothing else: the change it records has already happened.
 */
export function adminAccess({ audit, logger, now }: AdminAccessDeps): Middleware {
  return async (ctx, next) => {
    const caller = callerOf(ctx);
    const route = routeOf(ctx);
    const pattern = typeof route?.path === 'string' ? route.path : ctx.path;
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    if (READS.has(ctx.method) || READ_ROUTES.has(`${method} ${pattern}`)) {
      requireRole(caller, ROUTE_ROLES[`${method} ${pattern}`] ?? 'admin', `${method} ${pattern}`);
      return next();
    }
    let status = 500;
    try {
      requireRole(caller, ROUTE_ROLES[`${method} ${pattern}`] ?? 'admin', `${method} ${pattern}`);
      await next();
      status = ctx.status;
    } catch (err) {
      status = typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : 500;
      throw err;
    } finally {
      await record(entryOf(ctx, caller, route, pattern, status));
    }
  };

  function entryOf(ctx: Context, caller: Caller, route: MatchedLayer | undefined, pattern: string, status: number): AuditEntry {
    const targets = targetsOf(ctx, route);
    return { at: now(), actor: actorOf(caller), role: roleOf(caller), method: ctx.method, route: pattern, path: ctx.path, targets, source: ctx.ip, status };
  }

  async function record(entry: AuditEntry): Promise<void> {
    await audit.append(entry).catch((err: unknown) => logger.error({ err, audit: entry }, 'audit log: entry not written'));
  }
}
