import { AppError } from '../core/errors';
import { CreateDeviceRequest, UpdateDeviceRequest } from './codecs';
import { CredentialKey } from './credential-key';
import { generateKey } from './credentials';
import { Device, IssuedDevice } from './device';
import { importDevices, ImportRow } from './import';
import { CredentialMigration, DeviceFilter, DeviceStore, SessionControl } from './port';
import { newDevice, registerDevice } from './registration';

export interface RegistryDeps {
  devices: DeviceStore;
  sessions: SessionControl;
  /** What new credentials are digested with (devices/credential-key.ts). */
  credentialKey: CredentialKey;
  /** The store's rewrite of credentials an older release kept in plaintext (docs/production.md "Rolling upgrades"). */
  credentialMigration: CredentialMigration;
  now: () => number;
}

/** Admin use cases of the device registry (issue 2, section 2). */
export function createRegistry({ devices, sessions, credentialKey, credentialMigration, now }: RegistryDeps) {
  async function mustGet(deviceid: string): Promise<Device> {
    const device = await devices.getDevice(deviceid);
    if (!device) throw new AppError('DEVICE_NOT_FOUND', `no device with id ${deviceid}`);
    return device;
  }

  async function rotate(deviceid: string, which: 'token' | 'secret'): Promise<IssuedDevice> {
    const before = await mustGet(deviceid);
    const key = generateKey();
    const after: Device = { ...before, [which]: credentialKey.digest(key) };
    if (!(await devices.replaceDevice(after))) throw new AppError('DEVICE_NOT_FOUND', `no device with id ${deviceid}`);
    sessions.disconnectDevice(deviceid, `${which} rotated`);
    return { device: after, issued: { [which]: key } };
  }

  return {
    /** A new device, with the credentials given (moving a fleet from NETPIE) or new ones, issued this once. */
    async createDevice(req: CreateDeviceRequest): Promise<IssuedDevice> {
      const created = newDevice(req, now(), credentialKey);
      await registerDevice({ devices, sessions }, created.device, req.token);
      return created;
    },

    /** Many devices at once, all or none (devices/import.ts). */
    importDevices: (rows: readonly ImportRow[], dryRun: boolean) =>
      importDevices({ devices, sessions, credentialKey, now }, rows, dryRun),

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

    /** A new token, issued this once: a lost one is replaced, never shown again. The device's sessions end. */
    rotateToken: (deviceid: string) => rotate(deviceid, 'token'),

    /** A new secret, as rotateToken. */
    rotateSecret: (deviceid: string) => rotate(deviceid, 'secret'),

    /** How far the store's credentials are rewritten as digests; `complete` rewrites what is left (all nodes new). */
    credentialMigration,

    async deleteDevice(deviceid: string): Promise<void> {
      if (!(await devices.deleteDevice(deviceid))) throw new AppError('DEVICE_NOT_FOUND', `no device with id ${deviceid}`);
      sessions.disconnectDevice(deviceid, 'device deleted');
    },
  };
}

export type Registry = ReturnType<typeof createRegistry>;
