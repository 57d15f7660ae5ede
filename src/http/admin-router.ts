import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import * as t from 'io-ts';
import { version } from '../../package.json';
import { closed } from '../core/codecs';
import { decodeOrThrow } from '../core/decode-errors';
import { CreateDeviceRequest, DeviceListQuery, UpdateDeviceRequest } from '../devices/codecs';
import { Device, IssuedDevice } from '../devices/device';
import { pageDevices, summarizeFleet } from '../devices/fleet';
import { Presence } from '../devices/presence';
import { Registry } from '../devices/service';
import { callerOf, hasEveryProject, requireProject, requireProjectOf, requireRole, withinProjects } from '../operators/access';
import { IssueTokenRequest, RevokeTokenPath } from '../tokens/codecs';
import { GRANT_ROLES, grantsOfRequest, issueProjectToken } from '../tokens/project-tokens';
import { UserTokens } from '../tokens/user-tokens';
import { ADMIN_BODY_LIMIT, readJson } from './body';
import { readImportRows } from './import-body';

/** `?dryRun=true` checks an import and reports what it would do, writing nothing. */
const ImportQuery = closed({}, { dryRun: t.keyof({ true: null, false: null }) });

export interface AdminRouterDeps {
  /** Guards every route (http/admin-auth.ts). */
  adminAuth: Middleware;
  registry: Registry;
  presence: Presence;
  userTokens: UserTokens;
  /** The port devices connect to over MQTT, once the broker listens (port 0 picks one at start). */
  mqttPort: () => number;
}

/** The admin API (issue 2, section 2), under /v2/admin. */
export function adminRouter({ adminAuth, registry, presence, userTokens, mqttPort }: AdminRouterDeps): Router {
  const router = new Router({ prefix: '/v2/admin' });
  // Operators see the live connection state too; reading it here does not count as a device's own call. The record
  // keeps only digests of the token and secret: no read shows either (issue 20 §2).
  const record = ({ token, secret, ...d }: Device) => ({ ...d, status: presence.statusOf(d as Device) });
  // Credentials appear once, in the answer that issues them, which no cache may keep.
  const issued = (ctx: Context, { device, issued: credentials }: IssuedDevice) => {
    ctx.set('Cache-Control', 'no-store');
    return { ...record(device), ...credentials };
  };
  router.use(adminAuth);
  // The project of a device an operator limited to some projects acts on (operators/access.ts requireProjectOf).
  const projectOfDevice = (ctx: Context) => async () => (await registry.getDevice(ctx.params.deviceid)).projectid;

  router.post('/devices', async (ctx) => {
    const req = decodeOrThrow(CreateDeviceRequest, await readJson(ctx, ADMIN_BODY_LIMIT));
    requireProject(ctx, req.projectid);
    ctx.status = 201;
    ctx.body = issued(ctx, await registry.createDevice(req));
  });

  router.post('/devices/import', async (ctx) => {
    const dryRun = decodeOrThrow(ImportQuery, { ...ctx.query }, 'INVALID_QUERY').dryRun === 'true';
    const rows = await readImportRows(ctx);
    // An operator of some projects imports into them only; a row without a project is refused by the import itself.
    if (!hasEveryProject(callerOf(ctx))) {
      for (const { fields } of rows) {
        const projectid = typeof fields === 'object' && fields !== null ? (fields as { projectid?: unknown }).projectid : undefined;
        if (typeof projectid === 'string') requireProject(ctx, projectid);
      }
    }
    const report = await registry.importDevices(rows, dryRun);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = dryRun ? 200 : 201;
    ctx.body = report;
  });

  router.get('/devices', async (ctx) => {
    const { projectid, groupid, ...page } = decodeOrThrow(DeviceListQuery, { ...ctx.query }, 'INVALID_QUERY');
    // Without a project: the devices of the caller's projects (operators/access.ts).
    if (projectid !== undefined) requireProject(ctx, projectid);
    const { devices, total } = pageDevices(withinProjects(ctx, await registry.listDevices({ projectid, groupid })), page);
    ctx.body = { devices: devices.map(record), total };
  });

  // The console's overview (issue 13 §2): projects and groups exist through their devices.
  router.get('/projects', async (ctx) => {
    ctx.body = summarizeFleet(withinProjects(ctx, await registry.listDevices({})), (d) => presence.statusOf(d));
  });

  // What the console shows beside a new device's credentials (a ready mosquitto_sub line needs the MQTT port).
  router.get('/service', (ctx) => {
    ctx.body = { version, mqtt: { port: mqttPort() } };
  });

  router.get('/devices/:deviceid', async (ctx) => {
    const device = await registry.getDevice(ctx.params.deviceid);
    requireProject(ctx, device.projectid);
    ctx.body = record(device);
  });

  router.patch('/devices/:deviceid', async (ctx) => {
    const patch = decodeOrThrow(UpdateDeviceRequest, await readJson(ctx, ADMIN_BODY_LIMIT));
    await requireProjectOf(ctx, projectOfDevice(ctx));
    ctx.body = record(await registry.updateDevice(ctx.params.deviceid, patch));
  });

  // A lost token or secret is never shown again: it is replaced, and the new one shown this once.
  router.post('/devices/:deviceid/token', async (ctx) => {
    await requireProjectOf(ctx, projectOfDevice(ctx));
    ctx.body = issued(ctx, await registry.rotateToken(ctx.params.deviceid));
  });

  router.post('/devices/:deviceid/secret', async (ctx) => {
    await requireProjectOf(ctx, projectOfDevice(ctx));
    ctx.body = issued(ctx, await registry.rotateSecret(ctx.params.deviceid));
  });

  // The credential migration (docs/production.md "Rolling upgrades"): its state, and its completion once every node is new.
  router.get('/migrations', async (ctx) => {
    ctx.body = { migrations: [await registry.credentialMigration.status()] };
  });

  router.post('/migrations/credential-digests', async (ctx) => {
    ctx.body = await registry.credentialMigration.complete();
  });

  router.delete('/devices/:deviceid', async (ctx) => {
    await requireProjectOf(ctx, projectOfDevice(ctx));
    await registry.deleteDevice(ctx.params.deviceid);
    ctx.status = 204;
  });

  router.post('/tokens', async (ctx) => {
    const req: IssueTokenRequest = decodeOrThrow(IssueTokenRequest, await readJson(ctx, ADMIN_BODY_LIMIT));
    // A read-only token of one of the caller's projects reads nothing the caller cannot (the console's charts); one
    // that deletes history or writes desired state is an admin's (tokens/project-tokens.ts GRANT_ROLES).
    requireProject(ctx, req.projectid);
    const grants = grantsOfRequest(req);
    for (const grant of grants) requireRole(callerOf(ctx), GRANT_ROLES[grant], `a user token with the grant "${grant}"`);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await issueProjectToken({ listDevices: registry.listDevices, userTokens }, req.projectid, req.ttl ?? 86_400, grants);
  });

  // Every node signs and checks with the new key from now on; tokens signed with the old one are refused.
  router.post('/tokens/key', async (ctx) => {
    ctx.body = await userTokens.rotateKey();
  });

  // One token refused from now on, on every node (issue 20 §6); 204 again for a token revoked already.
  router.delete('/tokens/:jti', async (ctx) => {
    const { jti } = decodeOrThrow(RevokeTokenPath, { jti: ctx.params.jti }, 'INVALID_QUERY');
    await userTokens.revoke(jti.toLowerCase());
    ctx.status = 204;
  });

  return router;
}
