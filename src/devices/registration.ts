import { randomUUID } from 'node:crypto';
import { AppError } from '../core/errors';
import { CreateDeviceRequest } from './codecs';
import { CredentialKey } from './credential-key';
import { generateKey } from './credentials';
import { Device, IssuedDevice } from './device';
import { DeviceStore, SessionControl } from './port';

/**
 * The new device a request describes: what it does not give (`deviceid`, `token`, `secret`) is made here. The record
 * keeps the credentials' digests; `issued` holds them as they are, for the answer alone.
 */
export function newDevice(req: CreateDeviceRequest, created: number, key: CredentialKey): IssuedDevice {
  const token = req.token ?? generateKey();
  const secret = req.secret ?? generateKey();
  const device = {
    deviceid: req.deviceid ?? randomUUID(),
    token: key.digest(token),
    secret: key.digest(secret),
    alias: req.alias,
    groupid: req.groupid,
    projectid: req.projectid,
    enabled: req.enabled ?? true,
    banned: false,
    description: req.description ?? '',
    livenessttl: req.livenessttl ?? 0,
    created,
  };
  return { device, issued: { token, secret } };
}

export const tokenTaken = () => new AppError('TOKEN_TAKEN', 'another device holds this token');

/**
 * Stores a new device. A token the caller chose must name this device alone, since a token alone finds its device
 * (an MQTT CONNECT without ClientID, devices/authenticate.ts); a made one is 190 random bits, so is not looked up.
 *
 * No store can check a token and write a device in one step (Cassandra's transactions stay in one partition, and the
 * token index is another), so the check runs before the write and again after it: of two registrations of one token
 * that overlap, the one that looks last sees both and takes its device out again (both may). Neither is ever left
 * holding a token another device holds; in between, the token alone names neither (findDeviceByToken).
 */
export async function registerDevice(
  { devices, sessions }: { devices: DeviceStore; sessions: SessionControl },
  device: Device,
  givenToken: string | undefined,
): Promise<void> {
  // A device taken out again may have connected in between: its credentials were already out in the field.
  const takeOut = async () => {
    await devices.deleteDevice(device.deviceid);
    sessions.disconnectDevice(device.deviceid, 'registration undone');
  };
  if (givenToken !== undefined && (await devices.tokenHolders(givenToken)).length > 0) throw tokenTaken();
  await devices.insertDevice(device);
  if (givenToken === undefined) return;
  let shared: boolean;
  try {
    shared = (await devices.tokenHolders(givenToken)).some((id) => id !== device.deviceid);
  } catch (err) {
    await takeOut().catch(() => undefined);
    throw err;
  }
  if (!shared) return;
  await takeOut();
  throw tokenTaken();
}
