import type { Aedes, Client } from 'aedes';
import type { Logger } from 'pino';
import { Device } from '../devices/device';
import { DeviceStore, SessionControl } from '../devices/port';
import { connectedClients } from './aedes-patches';
import { ConnectionInspection } from './connection-inspection';
import { ApplicationConnection } from './flow-channel/application-connection';
import { closeSession } from './v5/refusals';

/** The backbone's reason when the device connected on another node (adapters/backbone/mqtt-backbone.ts). */
const TAKEN_OVER = 'session taken over';

/** Closes sessions the registry no longer allows: one device's on a kick, or every changed one on a recheck. */
export interface BrokerSessions extends SessionControl {
  /** Closes every session whose device was deleted, disabled, banned, moved or given a new token since it connected. */
  recheckSessions(): Promise<void>;
}

export function createBrokerSessions(
  aedes: Aedes,
  scopes: WeakMap<Client, Device>,
  applications: { apps: WeakMap<Client, ApplicationConnection>; open: ReadonlySet<Client> },
  devices: DeviceStore,
  logger: Logger,
  inspection: Pick<ConnectionInspection, 'closing'>,
): BrokerSessions {
  const close = (client: Client, deviceid: string, reason: string) => {
    logger.info({ deviceid, reason }, 'mqtt session closed by the service');
    inspection.closing(client, reason, reason.startsWith(TAKEN_OVER));
    // MQTT 5 clients hear why, in a DISCONNECT; MQTT 3.1.1 has none to send.
    if (client.version === 5) closeSession(client, reason, reason.startsWith(TAKEN_OVER));
    else client.close();
  };
  /** A store that does not answer leaves a session as it is; the next recheck or kick will see to it. */
  const endReasonOf = async (was: Device) => sessionEndReason(was, await devices.getDevice(was.deviceid).catch(() => was));
  return {
    /**
     * Also an application key's connections, whose ClientIDs start with the key (flow-channel/): keys and device ids
     * are UUIDs apart; and the application connections that watch the device, whose watches were checked against it
     * as it was: they come back, and subscribe again, under the same checks.
     */
    disconnectDevice(id, reason) {
      const client = connectedClients(aedes)[id];
      if (client) close(client, id, reason);
      for (const other of applications.open) {
        const conn = applications.apps.get(other);
        if (!conn || other.closed) continue;
        if (conn.app.key === id) close(other, id, reason);
        else if ([...conn.watches.values()].some((watch) => watch.device.deviceid === id)) close(other, conn.app.key, `watched device ${id}: ${reason}`);
      }
    },
    async recheckSessions() {
      for (const client of Object.values(connectedClients(aedes))) {
        const connectedAs = client && scopes.get(client);
        if (!client || !connectedAs) continue;
        const reason = await endReasonOf(connectedAs);
        if (reason !== undefined && !client.closed) close(client, connectedAs.deviceid, reason);
      }
      for (const other of applications.open) {
        const conn = applications.apps.get(other);
        // One read per device, however many of its notices the connection watches.
        const watched = new Map([...(conn?.watches.values() ?? [])].map(({ device }) => [device.deviceid, device]));
        for (const device of watched.values()) {
          const reason = await endReasonOf(device);
          if (reason === undefined || other.closed) continue;
          close(other, conn!.app.key, `watched device ${device.deviceid}: ${reason}`);
          break;
        }
      }
    },
  };
}

/** Why a device connected as `connectedAs` may no longer keep its session, as the registry's kicks would say. */
function sessionEndReason(connectedAs: Device, now: Device | undefined): string | undefined {
  if (!now) return 'device deleted';
  if (!now.enabled) return 'device disabled';
  if (now.banned) return 'device banned';
  if (now.token !== connectedAs.token) return 'token rotated';
  if (now.groupid !== connectedAs.groupid || now.projectid !== connectedAs.projectid) return 'device moved to another group';
  return undefined;
}
