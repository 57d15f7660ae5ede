import { AppError } from '../core/errors';
import { SessionControl } from '../devices/port';
import { ConnectionEvent, LiveConnection, NodeConnections } from './codecs';
import { ConnectionLog } from './connection-log';
import { ConnectionLogLimits } from './limits';
import { ConnectionGathering, LiveConnections } from './port';

/** A device's connections in the whole cluster, as the admin API answers them. */
export interface DeviceConnections {
  deviceid: string;
  connections: LiveConnection[];
  /** Every node's history of the device, merged, newest first (at most `eventsPerDevice` per node). */
  history: ConnectionEvent[];
  /** The nodes whose part is in the answer, and those that did not answer in time (their part is missing). */
  nodes: { answered: string[]; silent: string[] };
}

export interface ConnectionInspector {
  inspect(deviceid: string): Promise<DeviceConnections>;
  /** Closes the device's sessions on every node and records the kick here; `reason` is told to MQTT 5 clients. */
  kick(deviceid: string, reason?: string): { deviceid: string; reason: string };
}

export interface ConnectionInspectorDeps {
  log: ConnectionLog;
  live: LiveConnections;
  /** The other nodes (the MQTT backbone); a single node has none. */
  gathering?: ConnectionGathering;
  /** The cluster's session control: the registry's kicks go the same way (devices/port.ts). */
  sessions: SessionControl;
  limits: Pick<ConnectionLogLimits, 'kickReasonLength'>;
}

/** The connection inspector (issue 24 §2): live connections and recent history of a device, across the nodes. */
export function createConnectionInspector({ log, live, gathering, sessions, limits }: ConnectionInspectorDeps): ConnectionInspector {
  const ownPart = async (deviceid: string): Promise<NodeConnections> => ({
    node: log.nodeId,
    connections: await live.connectionsOf(deviceid),
    history: log.historyOf(deviceid),
  });
  gathering?.answerWith(ownPart);
  return {
    async inspect(deviceid) {
      const [own, others] = await Promise.all([ownPart(deviceid), gathering?.gather(deviceid) ?? { answers: [], silent: [] }]);
      const parts = [own, ...others.answers];
      return {
        deviceid,
        connections: parts.flatMap((part) => part.connections),
        history: parts.flatMap((part) => part.history).sort((a, b) => b.at.localeCompare(a.at)),
        nodes: { answered: parts.map((part) => part.node), silent: others.silent },
      };
    },
    kick(deviceid, reason) {
      if (reason !== undefined && reason.length > limits.kickReasonLength) {
        throw new AppError('INVALID_BODY', `reason: at most ${limits.kickReasonLength} characters`);
      }
      const said = reason ? `kicked by an operator: ${reason}` : 'kicked by an operator';
      log.record(deviceid, { kind: 'kicked', reason: said });
      sessions.disconnectDevice(deviceid, said);
      return { deviceid, reason: said };
    },
  };
}
