import { AppError } from '../core/errors';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';

/**
 * The device a shadow call is about: the caller itself, or the device of the caller's group named by `alias`
 * (spec 4.4). Shared by `data` (shadows/service.ts) and the desired document (desired/service.ts).
 */
export async function resolveShadowTarget(devices: Pick<DeviceStore, 'findDevicesByAlias'>, caller: Device, alias: string | undefined): Promise<Device> {
  if (alias === undefined || alias === caller.alias) return caller;
  const named = await devices.findDevicesByAlias(caller.projectid, alias);
  const sameGroup = named.find((d) => d.groupid === caller.groupid);
  if (sameGroup) return sameGroup;
  if (named.length > 0) throw new AppError('OTHER_GROUP', `device "${alias}" is not in your group`);
  throw new AppError('ALIAS_NOT_FOUND', `no device named "${alias}" in your group`);
}
