import { AppError } from '../core/errors';
import { secretDigest, secretMatches } from './credentials';
import { Device } from './device';
import { DeviceStore } from './port';

/** The digest of each device record's token, made once per record: records are kept (device-cache.ts), so reused. */
const tokenDigests = new WeakMap<Device, Buffer>();
const UNKNOWN_DEVICE_DIGEST = secretDigest('\u0000no-device');

function tokenDigestOf(device: Device | undefined): Buffer {
  if (!device) return UNKNOWN_DEVICE_DIGEST;
  let digest = tokenDigests.get(device);
  if (!digest) tokenDigests.set(device, (digest = secretDigest(device.token)));
  return digest;
}

/**
 * Checks a device's ClientID and token, for REST and MQTT alike. Unknown ids and wrong tokens give the same
 * answer, so the API does not reveal which device ids exist.
 */
export async function authenticateDevice(devices: DeviceStore, deviceid: string, token: string): Promise<Device> {
  const device = await devices.getDevice(deviceid);
  // Compare even when the device is unknown, so both failures take the same time.
  const tokenOk = secretMatches(token, tokenDigestOf(device));
  if (!device || !tokenOk) throw new AppError('INVALID_CREDENTIALS', 'unknown device or wrong token');
  if (device.banned) throw new AppError('DEVICE_BANNED', 'this device is banned');
  if (!device.enabled) throw new AppError('DEVICE_DISABLED', 'this device is disabled');
  return device;
}
