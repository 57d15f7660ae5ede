import { Device } from './device';

/**
 * Who is online (spec 2.1 `status`): a device is online while it has an MQTT connection, or, when its liveness TTL
 * is set, for that many seconds after its last REST call (netpie reference §5.10). Counts connections rather than
 * flags because an MQTT take-over connects the new session before the old one is closed.
 */
export function createPresence(now: () => number) {
  const connections = new Map<string, number>();
  const lastRestCall = new Map<string, number>();

  return {
    connected(deviceid: string): void {
      connections.set(deviceid, (connections.get(deviceid) ?? 0) + 1);
    },
    disconnected(deviceid: string): void {
      const left = (connections.get(deviceid) ?? 1) - 1;
      if (left > 0) connections.set(deviceid, left);
      else connections.delete(deviceid);
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
