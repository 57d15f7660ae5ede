import { AppError } from '../core/errors';
import { CreateDeviceRequest, UpdateDeviceRequest } from './codecs';
import { generateKey } from './credentials';
import { Device } from './device';
import { importDevices, ImportRow } from './import';
import { DeviceFilter, DeviceStore, SessionControl } from './port';
import { newDevice, registerDevice } from './registration';

export interface RegistryDeps {
  devices: DeviceStore;
  sessions: SessionControl;
  now: () => number;
}

/** Admin use cases of the device registry (issue 2, section 2). */
export function createRegistry({ devices, sessions, now }: RegistryDeps) {
  async function mustGet(deviceid: string): Promise<Device> {
    const device = await devices.getDevice(deviceid);
    if (!device) throw new AppError('DEVICE_NOT_FOUND', `no device with id ${deviceid}`);
    return device;
  }

  return {
    /** A new device, with the credentials given (moving a fleet from NETPIE) or new ones. */
    async createDevice(req: CreateDeviceRequest): Promise<Device> {
      const device = newDevice(req, now());
      await registerDevice({ devices, sessions }, device, req.token !== undefined);
      return device;
    },

    /** Many devices at once, all or none (devices/import.ts). */
    importDevices: (rows: readonly ImportRow[], dryRun: boolean) => importDevices({ devices, sessions, now }, rows, dryRun),

    listDevices: (filter: DeviceFilter) => devices.listDevices(filter),

    getDevice: mustGet,

    /**
     * A device that loses the right to connect (disabled, banned) or changes group is cut off at once: its
     * subscriptions were made in the old group's namespace, so it must reconnect to see the new one.
     */
    async updateDevice(deviceid: string, patch: UpdateDeviceRequest): Promise<Device> {
      const before = await mustGet(deviceid);
      const after: Device = { ...before, ...patch };
      if (!(await devices.replaceDevice(after))) throw new AppError('DEVICE_NOT_FOUND', `no device with id ${deviceid}`);
      if (!after.enabled && before.enabled) sessions.disconnectDevice(deviceid, 'device disabled');
      if (after.banned && !before.banned) sessions.disconnectDevice(deviceid, 'device banned');
      if (after.groupid !== before.groupid) sessions.disconnectDevice(deviceid, 'device moved to another group');
      return after;
    },

    async rotateToken(deviceid: string): Promise<Device> {
      const before = await mustGet(deviceid);
      const after: Device = { ...before, token: generateKey() };
      if (!(await devices.replaceDevice(after))) throw new AppError('DEVICE_NOT_FOUND', `no device with id ${deviceid}`);
      sessions.disconnectDevice(deviceid, 'token rotated');
      return after;
    },

    async deleteDevice(deviceid: string): Promise<void> {
      if (!(await devices.deleteDevice(deviceid))) throw new AppError('DEVICE_NOT_FOUND', `no device with id ${deviceid}`);
      sessions.disconnectDevice(deviceid, 'device deleted');
    },
  };
}

export type Registry = ReturnType<typeof createRegistry>;
