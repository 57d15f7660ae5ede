import type { Context, Middleware } from 'koa';
import { authenticateDevice } from '../devices/authenticate';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { Presence } from '../devices/presence';
import { AppError } from '../core/errors';

/** `Device <ClientID>:<token>` (spec 5) or `Basic base64(<ClientID>:<token>)` (netpie reference §5.1). */
export function parseDeviceCredentials(header: string): { deviceid: string; token: string } | undefined {
  const match = /^(Device|Basic)\s+(\S+)\s*$/i.exec(header);
  if (!match) return undefined;
  const pair = match[1].toLowerCase() === 'basic' ? Buffer.from(match[2], 'base64').toString('utf8') : match[2];
  const colon = pair.indexOf(':');
  if (colon <= 0) return undefined;
  return { deviceid: pair.slice(0, colon), token: pair.slice(colon + 1) };
}

/** Authenticates the calling device into `ctx.state.device` and counts the call for its liveness TTL. */
export function deviceAuth(devices: DeviceStore, presence: Presence): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (header === '') throw new AppError('MISSING_CREDENTIALS', 'send Authorization: Device <ClientID>:<token>');
    const creds = parseDeviceCredentials(header);
    if (!creds) throw new AppError('INVALID_CREDENTIALS', 'expected Authorization: Device <ClientID>:<token>');
    const device = await authenticateDevice(devices, creds.deviceid, creds.token);
    presence.touched(device.deviceid);
    ctx.state.device = device;
    await next();
  };
}

export const callerOf = (ctx: Context): Device => ctx.state.device as Device;
