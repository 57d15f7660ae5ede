import { Device } from './device';

/**
 * Who is online (spec 2.1 `status`): a device is online while it has an MQTT connection, or, when its liveness TTL
 * is set, for that many seconds after its last REST call (netpie reference §5.10). Counts connections rather than
 * flags because an MQTT take-over connects the new session before the old one is closed.
 */
export function createPresence(now: () => number) {
  const connections = new Map<string, number>();
  const lastRestCall = new Map<string, number>();
  const observers = new Set<(deviceid: string, online: boolean) => void>();
  const notify = (deviceid: string, online: boolean) => observers.forEach((observer) => observer(deviceid, online));

  return {
    connected(deviceid: string): void {
      const count = (connections.get(deviceid) ?? 0) + 1;
      connections.set(deviceid, count);
      if (count === 1) notify(deviceid, true);
    },
    disconnected(deviceid: string): void {
      const left = (connections.get(deviceid) ?? 1) - 1;
      if (left > 0) connections.set(deviceid, left);
      else if (connections.delete(deviceid)) notify(deviceid, false);
    },
    /**
     * Calls `observer` when a device's first MQTT connection on this node opens and when its last one closes (a
     * take-over, new connection first, is no change); for DEVICE.STATUSCHANGED triggers. Observers must not throw.
     */
    observe(observer: (deviceid: string, online: boolean) => void): void {
      observers.add(observer);
    },
    /** Open MQTT connections of the device on this node. */
    connectionsOf(deviceid: string): number {
      return connections.get(deviceid) ?? 0;
    },
    /** True while the device has an MQTT connection (on any node, for the presence of a cluster). */
    isConnected(deviceid: string): boolean {
      return connections.has(deviceid);
    },
    /** Every device with an MQTT connection on this node, with how many. */
    connectedDevices(): Map<string, number> {
      return new Map(connections);
    },
    touched(deviceid: string): void {
      lastRestCall.set(deviceid, now());
    },
    forget(deviceid: string): void {
      lastRestCall.delete(deviceid);
    },
    statusOf(device: Device): 0 | 1 {
      if (connections.has(device.deviceid)) return 1;
      const last = lastRestCall.get(device.deviceid);
      return device.livenessttl > 0 && last !== undefined && now() - last < device.livenessttl * 1000 ? 1 : 0;
    },
  };
}

export type Presence = ReturnType<typeof createPresence>;
