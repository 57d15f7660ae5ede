import { randomUUID } from 'node:crypto';
import { AppError } from '../core/errors';
import { CreateDeviceRequest, UpdateDeviceRequest } from './codecs';
import { generateKey } from './credentials';
import { Device } from './device';
import { DeviceFilter, DeviceStore, SessionControl } from './port';

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
    async createDevice(req: CreateDeviceRequest): Promise<Device> {
      const device: Device = {
        deviceid: randomUUID(),
        token: generateKey(),
        secret: generateKey(),
        alias: req.alias,
        groupid: req.groupid,
        projectid: req.projectid,
        enabled: req.enabled ?? true,
        banned: false,
        description: req.description ?? '',
        livenessttl: req.livenessttl ?? 0,
        created: now(),
      };
      await devices.insertDevice(device);
      return device;
    },

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
