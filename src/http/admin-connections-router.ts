import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import { KickRequest } from '../connections/codecs';
import { ConnectionInspector } from '../connections/inspector';
import { decodeOrThrow } from '../core/decode-errors';
import { Registry } from '../devices/service';
import { requireProject } from '../operators/access';
import { ADMIN_BODY_LIMIT, readJson } from './body';

export interface AdminConnectionsRouterDeps {
  /** Guards every route (http/admin-auth.ts, then http/admin-access.ts: roles and the audit log). */
  adminAuth: Middleware;
  registry: Registry;
  connections: ConnectionInspector;
}

/** The connection inspector (issue 24 §2; docs/operations.md "Connection inspector"), under /v2/admin. */
export function adminConnectionsRouter({ adminAuth, registry, connections }: AdminConnectionsRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  router.use(adminAuth);
  /** The device, which must exist and be within the caller's projects (operators/access.ts). */
  const deviceOf = async (ctx: Context) => {
    const device = await registry.getDevice(ctx.params.deviceid);
    requireProject(ctx, device.projectid);
    return device.deviceid;
  };

  router.get('/devices/:deviceid/connections', async (ctx) => {
    ctx.body = await connections.inspect(await deviceOf(ctx));
  });

  router.post('/devices/:deviceid/kick', async (ctx) => {
    const deviceid = await deviceOf(ctx);
    // The body is optional: `{}` or none kicks without a reason of the operator's own.
    const hasBody = Boolean(ctx.request.length) || ctx.get('transfer-encoding') !== '';
    const { reason } = decodeOrThrow(KickRequest, hasBody ? await readJson(ctx, ADMIN_BODY_LIMIT) : {});
    ctx.body = connections.kick(deviceid, reason);
  });

  return router;
}
