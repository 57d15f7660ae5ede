import { AppError } from '../core/errors';
import { CredentialKey, DIGEST_PREFIX } from './credentials';
import { Device } from './device';
import { DeviceStore } from './port';

/** What an unknown id is compared with, so that both failures take the same time; it names no key, so matches nothing. */
const UNKNOWN_DEVICE_TOKEN = `${DIGEST_PREFIX}-:${'A'.repeat(43)}`;

/**
 * Checks a device's ClientID and token, for REST and MQTT alike. Unknown ids and wrong tokens give the same
 * answer, so the API does not reveal which device ids exist.
 */
export async function authenticateDevice(devices: DeviceStore, key: CredentialKey, deviceid: string, token: string): Promise<Device> {
  const device = await devices.getDevice(deviceid);
  // Compare even when the device is unknown, so both failures take the same time.
  const tokenOk = key.matches(token, device?.token ?? UNKNOWN_DEVICE_TOKEN);
  if (!device || !tokenOk) throw new AppError('INVALID_CREDENTIALS', 'unknown device or wrong token');
  return admitted(device);
}

/**
 * Finds the device by its token alone, for an MQTT CONNECT without a ClientID (mqtt/authenticate.ts). A token no
 * device holds gets the same INVALID_CREDENTIALS, with the same message, as an unknown id or a wrong token above:
 * without an id there is no "wrong" token, only one that names nobody. No constant-time comparison here: the store
 * searches an index of the tokens' keyed digests (devices/port.ts, issue 20 §1), so its timing could at most tell how
 * much of a guess's digest matches some stored digest's leading characters, which tells nothing of any token.
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
