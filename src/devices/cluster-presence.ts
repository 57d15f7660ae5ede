import * as t from 'io-ts';
import { Presence } from './presence';

/**
 * What a node tells the others about its devices: how many MQTT connections each has there and when the newest
 * opened (`since`, ms on that node's clock), and which devices called the REST API there lately (spec 2.1 `status`
 * with `livenessttl`). A `full` report replaces everything the node said before; any other report is a change, where
 * a count of 0 means the device has no connection there any more.
 */
export const PresenceReport = t.exact(
  t.partial({
    full: t.boolean,
    connections: t.record(t.string, t.number),
    since: t.record(t.string, t.number),
    touched: t.array(t.string),
  }),
);
export type PresenceReport = t.TypeOf<typeof PresenceReport>;

/** Presence across the nodes of a cluster (issue 4 §2), fed by the MQTT backbone. */
export interface ClusterPresence {
  /** What the broker, the REST API and CoAP use: this node's presence, whose `statusOf` also counts other nodes. */
  readonly presence: Presence;
  /** This node's devices, for a node that (re)joins. */
  fullReport(): PresenceReport;
  /** Sends each change of this node's devices from now on; REST calls are gathered for `touchIntervalMs`. */
  reportTo(send: (report: PresenceReport) => void): void;
  /**
   * Applies what `node` reported. Returns the devices whose session here is older than their newest one there: a
   * second connection with the same ClientID takes over [MQTT-3.1.4-3], whichever node it reached, so this node
   * closes them. Both nodes compare the same two times (ties go to the greater node name), so exactly one session
   * stays, even when the two reports cross on the backbone.
   */
  apply(node: string, report: PresenceReport): string[];
  /** Drops what `node` reported: it left, or its Last Will says it is gone. */
  forgetNode(node: string): void;
  /** Drops every other node's reports: while this node is cut off from the backbone it cannot know them. */
  forgetOtherNodes(): void;
  /** Stops the timer of gathered REST calls. */
  close(): void;
}

export interface ClusterPresenceOptions {
  /** This node's name on the backbone. */
  nodeId: string;
  /** REST calls are reported at most this often. */
  touchIntervalMs: number;
  now: () => number;
}

export function createClusterPresence(local: Presence, { nodeId, touchIntervalMs, now }: ClusterPresenceOptions): ClusterPresence {
  /** Connections per device on each other node. */
  const nodes = new Map<string, Map<string, number>>();
  /** When the newest connection of each device connected here opened. */
  const since = new Map<string, number>();
  let send: (report: PresenceReport) => void = () => {};
  const touches = new Set<string>();
  let touchTimer: NodeJS.Timeout | undefined;

  const sendTouches = () => {
    touchTimer = undefined;
    const touched = [...touches];
    touches.clear();
    if (touched.length > 0) send({ touched });
  };
  const reportConnections = (deviceid: string) => {
    const count = local.connectionsOf(deviceid);
    const opened = since.get(deviceid);
    send({ connections: { [deviceid]: count }, ...(opened === undefined ? {} : { since: { [deviceid]: opened } }) });
  };
  /** True when a connection opened at `remote` on node `node` is newer than this node's session of the device. */
  const newerThere = (deviceid: string, remote: number | undefined, node: string) => {
    const here = since.get(deviceid);
    if (here === undefined || remote === undefined) return false;
    return remote > here || (remote === here && node > nodeId);
  };
  const elsewhere = (deviceid: string) => [...nodes.values()].some((devices) => devices.has(deviceid));

  const presence: Presence = {
    ...local,
    connected(deviceid) {
      local.connected(deviceid);
      since.set(deviceid, now());
      reportConnections(deviceid);
    },
    disconnected(deviceid) {
      local.disconnected(deviceid);
      if (local.connectionsOf(deviceid) === 0) since.delete(deviceid);
      reportConnections(deviceid);
    },
    touched(deviceid) {
      local.touched(deviceid);
      touches.add(deviceid);
      touchTimer ??= setTimeout(sendTouches, touchIntervalMs).unref();
    },
    statusOf(device) {
      return local.statusOf(device) === 1 || elsewhere(device.deviceid) ? 1 : 0;
    },
    isConnected(deviceid) {
      return local.isConnected(deviceid) || elsewhere(deviceid);
    },
  };

  return {
    presence,
    fullReport: () => ({ full: true, connections: Object.fromEntries(local.connectedDevices()), since: Object.fromEntries(since) }),
    reportTo(sender) {
      send = sender;
    },
    apply(node, report) {
      const devices = report.full ? new Map<string, number>() : (nodes.get(node) ?? new Map<string, number>());
      const superseded: string[] = [];
      for (const [deviceid, count] of Object.entries(report.connections ?? {})) {
        if (!Number.isSafeInteger(count) || count <= 0) {
          devices.delete(deviceid);
          continue;
        }
        devices.set(deviceid, count);
        if (newerThere(deviceid, report.since?.[deviceid], node)) superseded.push(deviceid);
      }
      nodes.set(node, devices);
      // The node saw the REST call just now (give or take touchIntervalMs): this node's clock starts the TTL.
      for (const deviceid of report.touched ?? []) local.touched(deviceid);
      return superseded;
    },
    forgetNode(node) {
      nodes.delete(node);
    },
    forgetOtherNodes() {
      nodes.clear();
    },
    close() {
      clearTimeout(touchTimer);
      touchTimer = undefined;
      touches.clear();
    },
  };
}
