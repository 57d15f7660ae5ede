import { AppError } from '../errors';
import { secretsEqual } from './credentials';
import { Device } from './device';
import { DeviceStore } from './port';

/**
 * Checks a device's ClientID and token, for REST and MQTT alike. Unknown ids and wrong tokens give the same
 * answer, so the API does not reveal which device ids exist.
 */
export async function authenticateDevice(devices: DeviceStore, deviceid: string, token: string): Promise<Device> {
  const device = await devices.getDevice(deviceid);
  // Compare even when the device is unknown, so both failures take the same time.
  const tokenOk = secretsEqual(token, device?.token ?? '\u0000no-device');
  if (!device || !tokenOk) throw new AppError('INVALID_CREDENTIALS', 'unknown device or wrong token');
  if (device.banned) throw new AppError('DEVICE_BANNED', 'this device is banned');
  if (!device.enabled) throw new AppError('DEVICE_DISABLED', 'this device is disabled');
  return device;
}
