import type { Context, Middleware } from 'koa';
import { authenticateDevice } from '../devices/authenticate';
import { DeviceStore } from '../devices/port';
import { AppError } from '../errors';
import { UserTokens } from '../tokens/user-tokens';
import { parseDeviceCredentials } from './device-auth';

/**
 * What a data-store caller may read (issue 3 §3): a user token sees every device of its project; a device sees
 * itself and the devices of its group.
 */
export interface FeedScope {
  projectid: string;
  /** Undefined for a user token: the whole project. */
  groupid?: string;
}

/** `Authorization: Bearer <user token>` or `Device <ClientID>:<token>` (spec 5) into `ctx.state.feedScope`. */
export function feedAuth(devices: DeviceStore, userTokens: UserTokens): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (header === '') {
      throw new AppError('MISSING_CREDENTIALS', 'send Authorization: Bearer <user token> or Device <ClientID>:<token>');
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (bearer) {
      const claims = await userTokens.verify(bearer[1]);
      if (!claims) throw new AppError('INVALID_CREDENTIALS', 'user token is malformed, forged or expired');
      ctx.state.feedScope = { projectid: claims.projectid } satisfies FeedScope;
    } else {
      const creds = parseDeviceCredentials(header);
      if (!creds) throw new AppError('INVALID_CREDENTIALS', 'expected Authorization: Bearer <user token> or Device <ClientID>:<token>');
      const device = await authenticateDevice(devices, creds.deviceid, creds.token);
      ctx.state.feedScope = { projectid: device.projectid, groupid: device.groupid } satisfies FeedScope;
    }
    await next();
  };
}

export const feedScopeOf = (ctx: Context): FeedScope => ctx.state.feedScope as FeedScope;

/** The ids of every device the caller may read, for scoped listings. */
export async function readableMetrics(devices: DeviceStore, scope: FeedScope): Promise<Set<string>> {
  const list = await devices.listDevices({ projectid: scope.projectid, groupid: scope.groupid });
  return new Set(list.map((d) => d.deviceid));
}

/** Refuses the whole query when any metric is not a device the caller may read. */
export async function checkMetricsReadable(devices: DeviceStore, scope: FeedScope, metrics: Iterable<string>): Promise<void> {
  for (const metric of new Set(metrics)) {
    const device = await devices.getDevice(metric);
    const ok = device !== undefined && device.projectid === scope.projectid && (scope.groupid === undefined || device.groupid === scope.groupid);
    if (!ok) throw new AppError('METRIC_FORBIDDEN', `metric ${metric} is not a device you may read`);
  }
}
