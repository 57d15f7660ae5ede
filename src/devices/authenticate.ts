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
  return admitted(device);
}

/**
 * Finds the device by its token alone, for an MQTT CONNECT without a ClientID (mqtt/authenticate.ts). A token no
 * device holds gets the same INVALID_CREDENTIALS, with the same message, as an unknown id or a wrong token above:
 * without an id there is no "wrong" token, only one that names nobody. No constant-time comparison here: the store
 * searches an index (devices/port.ts), and the most its timing could tell is how much of a guess matches some
 * token's leading characters in the index order, against 190-bit random tokens and across a network's jitter; once
 * the store keeps token digests, not even that.
 */
export async function authenticateDeviceByToken(devices: DeviceStore, token: string): Promise<Device> {
  // An empty token names no device: the store is not asked (nor a Cassandra index for an empty value).
  const device = token === '' ? undefined : await devices.findDeviceByToken(token);
  if (!device) throw new AppError('INVALID_CREDENTIALS', 'unknown device or wrong token');
  return admitted(device);
}

/** A device whose credentials matched is still refused when it is banned or disabled. */
function admitted(device: Device): Device {
  if (device.banned) throw new AppError('DEVICE_BANNED', 'this device is banned');
  if (!device.enabled) throw new AppError('DEVICE_DISABLED', 'this device is disabled');
  return device;
}
