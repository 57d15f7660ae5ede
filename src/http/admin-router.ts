import Router from '@koa/router';
import * as t from 'io-ts';
import { version } from '../../package.json';
import { closed, intBetween, ScopeId } from '../core/codecs';
import { decodeOrThrow } from '../core/decode-errors';
import { CreateDeviceRequest, DeviceListQuery, UpdateDeviceRequest } from '../devices/codecs';
import { Device } from '../devices/device';
import { pageDevices, summarizeFleet } from '../devices/fleet';
import { Presence } from '../devices/presence';
import { Registry } from '../devices/service';
import { UserTokens } from '../tokens/user-tokens';
import { adminAuth } from './admin-auth';
import { ADMIN_BODY_LIMIT, readJson } from './body';
import { readImportRows } from './import-body';

/**
 * Token lifetime in seconds: up to one year; 24 hours when absent, as NETPIE's own user tokens. `scope` `write` also
 * lets the token delete history; `read` when absent.
 */
const IssueTokenRequest = closed(
  { projectid: ScopeId },
  { ttl: intBetween(1, 31_536_000), scope: t.keyof({ read: null, write: null }) },
);

/** `?dryRun=true` checks an import and reports what it would do, writing nothing. */
const ImportQuery = closed({}, { dryRun: t.keyof({ true: null, false: null }) });

export interface AdminRouterDeps {
  adminToken: string;
  registry: Registry;
  presence: Presence;
  userTokens: UserTokens;
  /** The port devices connect to over MQTT, once the broker listens (port 0 picks one at start). */
  mqttPort: () => number;
}

/** The admin API (issue 2, section 2), under /v2/admin. */
export function adminRouter({ adminToken, registry, presence, userTokens, mqttPort }: AdminRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  // Operators see the live connection state too; reading it here does not count as a device's own call.
  const record = (d: Device) => ({ ...d, status: presence.statusOf(d) });
  router.use(adminAuth(adminToken));

  router.post('/devices', async (ctx) => {
    const req = decodeOrThrow(CreateDeviceRequest, await readJson(ctx, ADMIN_BODY_LIMIT));
    ctx.status = 201;
    ctx.body = record(await registry.createDevice(req));
  });

  router.post('/devices/import', async (ctx) => {
    const dryRun = decodeOrThrow(ImportQuery, { ...ctx.query }, 'INVALID_QUERY').dryRun === 'true';
    const report = await registry.importDevices(await readImportRows(ctx), dryRun);
    ctx.status = dryRun ? 200 : 201;
    ctx.body = report;
  });

  router.get('/devices', async (ctx) => {
    const { projectid, groupid, ...page } = decodeOrThrow(DeviceListQuery, { ...ctx.query }, 'INVALID_QUERY');
    const { devices, total } = pageDevices(await registry.listDevices({ projectid, groupid }), page);
    ctx.body = { devices: devices.map(record), total };
  });

  // The console's overview (issue 13 §2): projects and groups exist through their devices.
  router.get('/projects', async (ctx) => {
    ctx.body = summarizeFleet(await registry.listDevices({}), (d) => presence.statusOf(d));
  });

  // What the console shows beside a new device's credentials (a ready mosquitto_sub line needs the MQTT port).
  router.get('/service', (ctx) => {
    ctx.body = { version, mqtt: { port: mqttPort() } };
  });

  router.get('/devices/:deviceid', async (ctx) => {
    ctx.body = record(await registry.getDevice(ctx.params.deviceid));
  });

  router.patch('/devices/:deviceid', async (ctx) => {
    const patch = decodeOrThrow(UpdateDeviceRequest, await readJson(ctx, ADMIN_BODY_LIMIT));
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
    const req: t.TypeOf<typeof IssueTokenRequest> = decodeOrThrow(IssueTokenRequest, await readJson(ctx, ADMIN_BODY_LIMIT));
    ctx.status = 201;
    ctx.body = await userTokens.issue(req.projectid, req.ttl ?? 86_400, req.scope ?? 'read');
  });

  // Every node signs and checks with the new key from now on; tokens signed with the old one are refused.
  router.post('/tokens/key', async (ctx) => {
    ctx.body = await userTokens.rotateKey();
  });

  return router;
}
