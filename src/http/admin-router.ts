import Router from '@koa/router';
import * as t from 'io-ts';
import { closed, intBetween, ScopeId } from '../codecs';
import { decodeOrThrow } from '../decode-errors';
import { CreateDeviceRequest, DeviceListQuery, UpdateDeviceRequest } from '../devices/codecs';
import { Device } from '../devices/device';
import { Presence } from '../devices/presence';
import { Registry } from '../devices/service';
import { UserTokens } from '../tokens/user-tokens';
import { adminAuth } from './admin-auth';
import { BODY_LIMITS, readJson } from './body';

/** Token lifetime in seconds: up to one year; 24 hours when absent, as NETPIE's own user tokens. */
const IssueTokenRequest = closed({ projectid: ScopeId }, { ttl: intBetween(1, 31_536_000) });

export interface AdminRouterDeps {
  adminToken: string;
  registry: Registry;
  presence: Presence;
  userTokens: UserTokens;
}

/** The admin API (issue 2, section 2), under /v2/admin. */
export function adminRouter({ adminToken, registry, presence, userTokens }: AdminRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  // Operators see the live connection state too; reading it here does not count as a device's own call.
  const record = (d: Device) => ({ ...d, status: presence.statusOf(d) });
  router.use(adminAuth(adminToken));

  router.post('/devices', async (ctx) => {
    const req = decodeOrThrow(CreateDeviceRequest, await readJson(ctx, BODY_LIMITS.admin));
    ctx.status = 201;
    ctx.body = record(await registry.createDevice(req));
  });

  router.get('/devices', async (ctx) => {
    const filter = decodeOrThrow(DeviceListQuery, { ...ctx.query }, 'INVALID_QUERY');
    ctx.body = { devices: (await registry.listDevices(filter)).map(record) };
  });

  router.get('/devices/:deviceid', async (ctx) => {
    ctx.body = record(await registry.getDevice(ctx.params.deviceid));
  });

  router.patch('/devices/:deviceid', async (ctx) => {
    const patch = decodeOrThrow(UpdateDeviceRequest, await readJson(ctx, BODY_LIMITS.admin));
    ctx.body = record(await registry.updateDevice(ctx.params.deviceid, patch));
  });

  router.post('/devices/:deviceid/token', async (ctx) => {
    ctx.body = record(await registry.rotateToken(ctx.params.deviceid));
  });

  router.delete('/devices/:deviceid', async (ctx) => {
    await registry.deleteDevice(ctx.params.deviceid);
    ctx.status = 204;
  });

  router.post('/tokens', async (ctx) => {
    const req: t.TypeOf<typeof IssueTokenRequest> = decodeOrThrow(IssueTokenRequest, await readJson(ctx, BODY_LIMITS.admin));
    ctx.status = 201;
    ctx.body = await userTokens.issue(req.projectid, req.ttl ?? 86_400);
  });

  return router;
}
