import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { Admission } from '../devices/admission';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { Registry } from '../devices/service';
import { desiredReply, desiredWriteReply } from '../desired/replies';
import { DesiredService } from '../desired/service';
import { deviceForToken } from '../desired/token-access';
import { requireProject } from '../operators/access';
import { SHADOW_LIMITS } from '../shadows/limits';
import { readJson } from './body';
import { admitDevice, callerOf } from './device-auth';
import { singleQuery } from './query';
import { revConditionOf, setShadowEtag } from './shadow-conditions';
import { userTokenClaimsOf, UserTokenAuthDeps } from './user-token-auth';

/** Where one caller's desired routes find the device they are about. */
type TargetOf = (ctx: Context) => Promise<Device>;

/**
 * GET (the document and its delta), PUT (merge) and POST (overwrite) of a desired document, for whichever caller
 * `targetOf` admits (docs/device-api.md "Desired state"). ETag is the desired document's own rev; writes take
 * If-Match / If-None-Match on it, as `data` writes do on theirs.
 */
function desiredRoutes(router: Router, path: string, desired: DesiredService, targetOf: TargetOf): Router {
  router.get(path, async (ctx) => {
    const view = await desired.readFor(await targetOf(ctx));
    setShadowEtag(ctx, view.state);
    ctx.body = { status: 200, ...desiredReply(view) };
  });
  const write = (merged: boolean) => async (ctx: Context) => {
    const target = await targetOf(ctx);
    const condition = revConditionOf(ctx);
    const body = await readJson(ctx, SHADOW_LIMITS.maxWriteBodyBytes);
    const result = await desired.writeTo(target, body, merged, condition);
    setShadowEtag(ctx, result.state);
    ctx.body = { status: 200, ...desiredWriteReply(result) };
  };
  router.put(path, write(true));
  router.post(path, write(false));
  return router;
}

/** The Device API's `/shadow/desired`: the caller's own, or (`?alias=`) a device's of its group. Mounted at /v2/device and /device. */
export function deviceDesiredRouter(prefix: string, deps: { admission: Admission; desired: DesiredService }): Router {
  const router = new Router({ prefix });
  router.use(admitDevice(deps.admission));
  return desiredRoutes(router, '/shadow/desired', deps.desired, (ctx) => deps.desired.target(callerOf(ctx), singleQuery(ctx, 'alias')));
}

/** The admin API's `/v2/admin/devices/{deviceid}/shadow/desired`, for operators of the device's project. */
export function adminDesiredRouter(deps: { adminAuth: Middleware; registry: Registry; desired: DesiredService }): Router {
  const router = new Router({ prefix: '/v2/admin' });
  router.use(deps.adminAuth);
  return desiredRoutes(router, '/devices/:deviceid/shadow/desired', deps.desired, async (ctx) => {
    const device = await deps.registry.getDevice(ctx.params.deviceid);
    requireProject(ctx, device.projectid);
    return device;
  });
}

export interface TokenDesiredRouterDeps extends UserTokenAuthDeps {
  devices: Pick<DeviceStore, 'getDevice'>;
  desired: DesiredService;
}

/** `/v2/shadows/{deviceid}/desired` for a user token with the `desired` grant, within its project (desired/token-access.ts). */
export function tokenDesiredRouter(deps: TokenDesiredRouterDeps): Router {
  const router = new Router({ prefix: '/v2/shadows' });
  return desiredRoutes(router, '/:deviceid/desired', deps.desired, async (ctx) => {
    const claims = await userTokenClaimsOf(ctx, deps, 'a token issued with the grant "desired"');
    return deviceForToken(claims, ctx.params.deviceid, deps.devices.getDevice);
  });
}
