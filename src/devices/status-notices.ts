import type { Logger } from 'pino';
import { MessageBus } from '../messaging/port';
import { statusChangedTopic } from '../messaging/topics';
import { DeviceStore } from './port';
import { Presence } from './presence';

/**
 * `@device/status/changed` for applications watching a device (NETPIE's Flow Channel: mqtt/flow-channel/), as
 * NETPIE's Node-RED status node reads it: `{"deviceid","projectid","groupid","status":0|1,"enabled"}`. Published by
 * the node where the device's first MQTT connection opened or its last one closed, on the accepted-message path, so
 * an application on any node hears it once. A device that moves to another node (a take-over) is still online in
 * the cluster's presence when its old node lets go: no notice then. QoS 0: a notice of a state, the next one
 * corrects a lost one. Changes made by REST calls and `livenessttl` are not announced (docs/mqtt.md). A stopping
 * node says nothing of the connections it closes (`stop`), as its triggers do: its devices are not going offline, they
 * move to another node; and its broker takes no new message while it closes.
 */
export function createStatusNotices(deps: { devices: DeviceStore; presence: Presence; bus: () => MessageBus; logger: Logger }) {
  const { devices, presence, bus, logger } = deps;
  let stopped = false;
  const observer = (deviceid: string, online: boolean): void => {
    if (stopped) return;
    void (async () => {
      const device = await devices.getDevice(deviceid);
      if (!device) return;
      const status = presence.statusOf(device);
      if (status !== (online ? 1 : 0)) return;
      const { projectid, groupid, enabled } = device;
      await bus().publish(statusChangedTopic(deviceid), Buffer.from(JSON.stringify({ deviceid, projectid, groupid, status, enabled })), { qos: 0 });
    })().catch((err: unknown) => logger.warn({ err, deviceid }, 'status notice not delivered'));
  };
  return {
    observer,
    /** First step of a shutdown. */
    stop: () => void (stopped = true),
  };
}
