import { Device } from './device';
import { DeviceCacheControl, DeviceStore } from './port';

/** Bounds of the device cache (docs/operations.md "Performance"). */
export const DEVICE_CACHE_DEFAULTS = {
  /**
   * The longest a node serves a device record it read from the store. Changes made through this node are seen at
   * once, and the backbone tells the other nodes within its delivery time; this bounds what a lost notice can cost.
   */
  ttlMs: 5_000,
  /** Records kept; the oldest read goes first. About 0.5 KiB each. */
  maxEntries: 100_000,
};

interface Entry {
  readonly device: Device;
  readonly expires: number;
}

export interface DeviceCache extends DeviceStore, DeviceCacheControl {
  /** Called after every change made through this cache (the backbone tells the other nodes). */
  onChange(listener: (deviceid: string) => void): void;
}

export interface DeviceCacheOptions {
  now: () => number;
  ttlMs?: number;
  maxEntries?: number;
}

/**
 * The device registry with recent reads kept in memory: every REST call, CoAP request and MQTT CONNECT reads its
 * device, and the profile of GET /v2/device/status showed that read as its largest cost (issue 12). Writes go
 * through to the store and drop the record here before they resolve, so a disabled, banned, moved, deleted or
 * re-keyed device is refused on this node as soon as the admin call returns. Unknown ids are not kept: a client
 * trying random ids cannot fill the cache.
 */
export function createDeviceCache(store: DeviceStore, options: DeviceCacheOptions): DeviceCache {
  const { now } = options;
  const ttlMs = options.ttlMs ?? DEVICE_CACHE_DEFAULTS.ttlMs;
  const maxEntries = options.maxEntries ?? DEVICE_CACHE_DEFAULTS.maxEntries;
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<Device | undefined>>();
  const listeners: ((deviceid: string) => void)[] = [];
  /** Bumped by every forget: a read that started before one must not store what it read. */
  let generation = 0;

  function forget(deviceid: string): void {
    generation++;
    entries.delete(deviceid);
    loading.delete(deviceid);
  }

  /**
   * Records are kept in the order they were read, all for the same time: the expired ones are at the head. Dropping
   * them as new ones come keeps only the devices read in the last `ttlMs`, not every device ever read up to
   * `maxEntries` (a fleet that connects once and stays connected would otherwise keep a record per connection).
   */
  function dropExpired(at: number): void {
    for (const [deviceid, entry] of entries) {
      if (entry.expires > at) return;
      entries.delete(deviceid);
    }
  }

  function load(deviceid: string): Promise<Device | undefined> {
    const startedAt = generation;
    const pending = store.getDevice(deviceid).then(
      (device) => {
        if (loading.get(deviceid) === pending) loading.delete(deviceid);
        if (device !== undefined && generation === startedAt) {
          const at = now();
          dropExpired(at);
          if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
          entries.delete(deviceid);
          entries.set(deviceid, { device, expires: at + ttlMs });
        }
        return device;
      },
      (err: unknown) => {
        if (loading.get(deviceid) === pending) loading.delete(deviceid);
        throw err;
      },
    );
    loading.set(deviceid, pending);
    return pending;
  }

  /** Runs a write, then forgets the device here and tells the listeners, even when the write failed half-way. */
  async function changing<T>(deviceid: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      forget(deviceid);
      for (const listener of listeners) listener(deviceid);
    }
  }

  return {
    getDevice(deviceid) {
      const entry = entries.get(deviceid);
      if (entry !== undefined) {
        if (entry.expires > now()) return Promise.resolve(entry.device);
        entries.delete(deviceid);
      }
      return loading.get(deviceid) ?? load(deviceid);
    },
    // A new id was never cached anywhere (unknown ids are not kept), so there is nothing to tell.
    insertDevice: (device) => store.insertDevice(device),
    replaceDevice: (device) => changing(device.deviceid, () => store.replaceDevice(device)),
    deleteDevice: (deviceid) => changing(deviceid, () => store.deleteDevice(deviceid)),
    // Lists and alias look-ups are admin and shadow-alias reads: not on the per-call path, always from the store.
    findDevicesByAlias: (projectid, alias) => store.findDevicesByAlias(projectid, alias),
    listDevices: (filter) => store.listDevices(filter),
    // Only a CONNECT without a ClientID asks by token, once per connection; kept here by token, a record would need a
    // second key to forget when its token is rotated, for little gain.
    findDeviceByToken: (token) => store.findDeviceByToken(token),
    tokenHolders: (token) => store.tokenHolders(token),
    forget,
    forgetAll() {
      generation++;
      entries.clear();
      loading.clear();
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
