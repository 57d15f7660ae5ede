import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { ShadowStore } from '../shadows/port';
import { FleetEntry, FleetSource } from './port';

/** Shadows read at once while a project is loaded: enough to keep a remote store busy, few enough to share it. */
const LOAD_CONCURRENCY = 32;

/**
 * The fleet index's source over the store's own ports, for any store (Cassandra reads each shadow by its key). The
 * SQLite store has a faster one that reads a project in one query (adapters/sqlite/sqlite-fleet-source.ts).
 */
export function storeFleetSource(devices: Pick<DeviceStore, 'getDevice' | 'listDevices'>, shadows: Pick<ShadowStore, 'readShadow'>): FleetSource {
  const entryOf = async (device: Device): Promise<FleetEntry> => {
    const shadow = await shadows.readShadow(device.deviceid);
    return {
      deviceid: device.deviceid,
      projectid: device.projectid,
      groupid: device.groupid,
      alias: device.alias,
      data: shadow?.data ?? {},
      rev: shadow?.rev ?? 0,
      modified: shadow?.modified ?? 0,
    };
  };
  return {
    async loadProject(projectid) {
      const list = await devices.listDevices({ projectid });
      const entries: FleetEntry[] = new Array(list.length);
      let next = 0;
      const worker = async () => {
        while (next < list.length) {
          const i = next++;
          entries[i] = await entryOf(list[i]);
        }
      };
      await Promise.all(Array.from({ length: Math.min(LOAD_CONCURRENCY, list.length) }, worker));
      return entries;
    },
    async loadDevice(deviceid) {
      const device = await devices.getDevice(deviceid);
      return device && entryOf(device);
    },
  };
}
