import { AppError } from '../core/errors';
import { Admission } from '../devices/admission';
import { secretsEqual } from '../devices/credentials';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { UserTokens, UserTokenScope } from '../tokens/user-tokens';

/**
 * Who calls the data-store API and what it may touch (issue 3 §3, issue 13 §1):
 * - a user token reads every device of its project, and with scope `write` deletes their history;
 * - a device reads itself and the devices of its group, and deletes only its own history;
 * - the admin token reads and deletes every metric.
 */
export type DataScope =
  | { readonly kind: 'admin' }
  | { readonly kind: 'user'; readonly projectid: string; readonly scope: UserTokenScope }
  | { readonly kind: 'device'; readonly device: Device };

/** What a transport parsed from the caller: a bearer token (a user token or ADMIN_TOKEN), or a device's credentials. */
export type DataCredentials =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'device'; readonly deviceid: string; readonly token: string };

export interface ScopeDeps {
  devices: DeviceStore;
  /** The one way in (devices/admission.ts): credential checks under the guessing limits of every door. */
  admission: Pick<Admission, 'authenticate' | 'guarded'>;
  userTokens: Pick<UserTokens, 'verify'>;
  /** ADMIN_TOKEN: as a bearer token it reads every metric. */
  adminToken: string;
}

/**
 * The caller's scope, or INVALID_CREDENTIALS (a device's own refusals too), or TOO_MANY_FAILURES when `source` has
 * guessed too often: a device's credentials count against the device, bearer tokens against `bearer`.
 */
export async function scopeOf(deps: ScopeDeps, credentials: DataCredentials, source: string): Promise<DataScope> {
  if (credentials.kind === 'device') {
    return { kind: 'device', device: await deps.admission.authenticate('data-store', source, credentials) };
  }
  return deps.admission.guarded('data-store', source, 'bearer', async (): Promise<DataScope> => {
    if (secretsEqual(credentials.token, deps.adminToken)) return { kind: 'admin' };
    const claims = await deps.userTokens.verify(credentials.token);
    if (!claims) throw new AppError('INVALID_CREDENTIALS', 'user token is malformed, forged or expired');
    return { kind: 'user', projectid: claims.projectid, scope: claims.scope };
  });
}

/** Query slots are shared per tenant: a user token's project, a device's group; the admin token is one tenant. */
export function tenantOf(scope: DataScope): string {
  if (scope.kind === 'admin') return 'admin';
  if (scope.kind === 'user') return `project:${scope.projectid}`;
  return `group:${scope.device.projectid}/${scope.device.groupid}`;
}

const mayRead = (scope: DataScope, device: Device): boolean =>
  scope.kind === 'admin' ||
  (scope.kind === 'user' && device.projectid === scope.projectid) ||
  (scope.kind === 'device' && device.projectid === scope.device.projectid && device.groupid === scope.device.groupid);

/** Every device the caller may read, for scoped listings. */
export function readableDevices(devices: DeviceStore, scope: DataScope): Promise<Device[]> {
  const filter = scope.kind === 'admin' ? {} : scope.kind === 'user' ? { projectid: scope.projectid }
    : { projectid: scope.device.projectid, groupid: scope.device.groupid };
  return devices.listDevices(filter);
}

/** Refuses the whole query when any metric is not a device the caller may read. */
export async function checkMetricsReadable(devices: DeviceStore, scope: DataScope, metrics: Iterable<string>): Promise<void> {
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
export async function checkMetricsWritable(devices: DeviceStore, scope: DataScope, metrics: Iterable<string>): Promise<void> {
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
async function forbiddenMessage(devices: DeviceStore, scope: DataScope, metric: string, what: 'read' | 'delete'): Promise<string> {
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
