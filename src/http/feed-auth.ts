import type { Context, Middleware } from 'koa';
import { authenticateDevice } from '../devices/authenticate';
import { secretsEqual } from '../devices/credentials';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { AppError } from '../core/errors';
import { UserTokens, UserTokenScope } from '../tokens/user-tokens';
import { parseDeviceCredentials } from './device-auth';

/**
 * Who calls the data-store API and what it may touch (issue 3 §3, issue 13 §1):
 * - a user token reads every device of its project, and with scope `write` deletes their history;
 * - a device reads itself and the devices of its group, and deletes only its own history;
 * - the admin token reads and deletes every metric.
 */
export type FeedScope =
  | { readonly kind: 'admin' }
  | { readonly kind: 'user'; readonly projectid: string; readonly scope: UserTokenScope }
  | { readonly kind: 'device'; readonly device: Device };

/** A user token is a JWT: three base64url parts. */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const HINT = 'send Authorization: Bearer <user token>, Device <ClientID>:<token>, or Basic with either';

/**
 * `Authorization: Bearer <user token | ADMIN_TOKEN>`, `Device <ClientID>:<token>` (spec 5), or Basic carrying either
 * (Grafana's data sources send Basic: username = ClientID and password = token, or any username and a user token as
 * the password) into `ctx.state.feedScope`.
 */
export function feedAuth(devices: DeviceStore, userTokens: UserTokens, adminToken?: string): Middleware {
  const byToken = async (token: string): Promise<FeedScope> => {
    if (adminToken !== undefined && secretsEqual(token, adminToken)) return { kind: 'admin' };
    const claims = await userTokens.verify(token);
    if (!claims) throw new AppError('INVALID_CREDENTIALS', 'user token is malformed, forged or expired');
    return { kind: 'user', projectid: claims.projectid, scope: claims.scope };
  };
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (header === '') throw new AppError('MISSING_CREDENTIALS', HINT);
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
    let scope: FeedScope;
    if (bearer) {
      scope = await byToken(bearer[1]);
    } else {
      const creds = parseDeviceCredentials(header);
      if (!creds) throw new AppError('INVALID_CREDENTIALS', `malformed Authorization header: ${HINT}`);
      const basicToken = /^Basic\s/i.test(header) && JWT.test(creds.token);
      scope = basicToken ? await byToken(creds.token) : { kind: 'device', device: await authenticateDevice(devices, creds.deviceid, creds.token) };
    }
    ctx.state.feedScope = scope;
    await next();
  };
}

export const feedScopeOf = (ctx: Context): FeedScope => ctx.state.feedScope as FeedScope;

const mayRead = (scope: FeedScope, device: Device): boolean =>
  scope.kind === 'admin' ||
  (scope.kind === 'user' && device.projectid === scope.projectid) ||
  (scope.kind === 'device' && device.projectid === scope.device.projectid && device.groupid === scope.device.groupid);

/** The ids of every device the caller may read, for scoped listings. */
export async function readableMetrics(devices: DeviceStore, scope: FeedScope): Promise<Set<string>> {
  const filter = scope.kind === 'admin' ? {} : scope.kind === 'user' ? { projectid: scope.projectid }
    : { projectid: scope.device.projectid, groupid: scope.device.groupid };
  const list = await devices.listDevices(filter);
  return new Set(list.map((d) => d.deviceid));
}

/** Refuses the whole query when any metric is not a device the caller may read. */
export async function checkMetricsReadable(devices: DeviceStore, scope: FeedScope, metrics: Iterable<string>): Promise<void> {
  for (const metric of new Set(metrics)) {
    if (scope.kind === 'admin') continue;
    const device = await devices.getDevice(metric);
    if (device === undefined || !mayRead(scope, device)) {
      throw new AppError('METRIC_FORBIDDEN', await forbiddenMessage(devices, scope, metric, 'read'));
    }
  }
}

/**
 * Refuses deleting history unless the caller may write every metric: the admin token any metric (also one whose
 * device is gone), a user token with scope `write` the devices of its project, a device only itself.
 */
export async function checkMetricsWritable(devices: DeviceStore, scope: FeedScope, metrics: Iterable<string>): Promise<void> {
  if (scope.kind === 'admin') return;
  if (scope.kind === 'user' && scope.scope !== 'write') {
    throw new AppError('READ_ONLY_TOKEN', 'this user token may only read; issue one with "scope": "write" (POST /v2/admin/tokens) to delete history');
  }
  for (const metric of new Set(metrics)) {
    if (scope.kind === 'device') {
      if (metric === scope.device.deviceid) continue;
      throw new AppError('METRIC_FORBIDDEN', `metric ${metric}: a device may delete only its own history (${scope.device.deviceid}); use a user token with scope write`);
    }
    const device = await devices.getDevice(metric);
    if (device === undefined || device.projectid !== scope.projectid) {
      throw new AppError('METRIC_FORBIDDEN', await forbiddenMessage(devices, scope, metric, 'delete'));
    }
  }
}

/**
 * Why `metric` is refused. A metric is named by the device id; people often write the alias they gave the device,
 * so when the name is the alias of a device the caller could reach, the message names its id (issue 13 §3).
 */
async function forbiddenMessage(devices: DeviceStore, scope: FeedScope, metric: string, what: 'read' | 'delete'): Promise<string> {
  const projectid = scope.kind === 'user' ? scope.projectid : scope.kind === 'device' ? scope.device.projectid : undefined;
  if (projectid !== undefined) {
    const named = (await devices.findDevicesByAlias(projectid, metric)).filter((d) => mayRead(scope, d));
    if (named.length > 0) {
      const ids = named.map((d) => `"${d.deviceid}"`).join(' or ');
      return `metric "${metric}" is a device alias, not a device id: metrics are named by the device id (ClientID); use ${ids}`;
    }
  }
  return `metric ${metric} is not a device you may ${what}`;
}
