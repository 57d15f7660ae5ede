import { DESIRED_DELTA, FEED_UPDATED, SHADOW_UPDATED, STATUS_CHANGED } from '../../messaging/topics';

/**
 * The MQTT backbone's topics (issue 4 §2). Every node subscribes to `openpie/v1/#` and publishes:
 *
 * | Topic                                       | Payload                        | What it says                            |
 * |---------------------------------------------|--------------------------------|-----------------------------------------|
 * | `openpie/v1/msg/g/{project}/{group}/@msg/…` | the message                    | a group message (`$openpie/g/…` inside) |
 * | `openpie/v1/msg/d/{deviceid}/@private/…`    | the message                    | a private message (`$openpie/d/…`)      |
 * | `openpie/v1/msg/d/{deviceid}/@shadow/data/updated` | JSON notice             | a shadow write, for the device's node   |
 * | `openpie/v1/msg/d/{deviceid}/@shadow/desired/delta` | JSON notice            | the desired delta, for the device's node |
 * | `openpie/v1/msg/d/{deviceid}/@device/status/changed` | JSON notice           | for applications watching the device    |
 * | `openpie/v1/msg/d/{deviceid}/@feed/data/updated` | JSON notice               | for applications watching the device    |
 * | `openpie/v1/presence/{node}`                | JSON PresenceReport            | the node's device connections           |
 * | `openpie/v1/hello/{node}`                   | empty                          | the node (re)joined: send full reports  |
 * | `openpie/v1/bye/{node}`                     | empty                          | the node left (also its Last Will)      |
 * | `openpie/v1/kick/{deviceid}`                | JSON `{"reason"}`              | close the device's sessions everywhere  |
 * | `openpie/v1/changed/{node}`                 | JSON `{"kind","key"}`          | shared state changed: drop cached copies |
 * | `openpie/v1/flush/{node}`                   | empty                          | the node's share connection is drained  |
 * | `openpie/v1/inspect/{node}`                 | JSON `{"id","deviceid"}`       | node asks for a device's connections    |
 * | `openpie/v1/inspected/{node}`               | JSON `{"id","part"}`           | one node's part of the answer, to node  |
 *
 * A node with members of a device share subscribes (on its own connection, mqtt-share-distribution.ts) to
 * `$share/{name}/openpie/v1/msg/g/{project}/{group}/@msg/{filter}`: the backbone's shared subscription of the same name
 * and filter, so that the backbone gives each of the share's messages to one such node [MQTT-4.8.2-3].
 *
 * Message topics keep the scope of the internal topic, so group and private isolation cross nodes unchanged, and do
 * not name the node that published: a retained message then has one backbone copy per topic, whichever node set it.
 * Internal topics start with `$` (topics.ts); brokers keep `$` topics for themselves [MQTT-4.7.2-1], hence the
 * mapping. `v1` names this layout, so a later one can run beside it during a rolling upgrade.
 */
export const BACKBONE_ROOT = 'openpie/v1';
export const BACKBONE_FILTER = `${BACKBONE_ROOT}/#`;

const INTERNAL_ROOT = '$openpie/';
const MESSAGES = `${BACKBONE_ROOT}/msg/`;

export type BackboneTopic =
  | { kind: 'message'; internalTopic: string }
  | { kind: 'presence' | 'hello' | 'bye' | 'changed' | 'flush' | 'rate' | 'inspect' | 'inspected'; node: string }
  | { kind: 'kick'; deviceid: string };

/** The notices of a device that every node may have a listener for: the device itself, or applications (Flow Channel). */
const DEVICE_NOTICES = new Set([SHADOW_UPDATED, DESIRED_DELTA, STATUS_CHANGED, FEED_UPDATED]);

/**
 * `g/{project}/{group}/@msg/{topic}`, `d/{deviceid}/@private/{topic}` or `d/{deviceid}/{notice}` (a write through any
 * node is told to the device, and to the applications watching it, wherever they are connected): the only internal
 * topics nodes share. An application's own replies (`a/...`) stay on its node.
 */
function isSharedScope(scoped: string): boolean {
  const levels = scoped.split('/');
  const filled = (n: number) => levels.slice(0, n).every((l) => l !== '') && levels.length > n;
  if (levels[0] === 'g') return levels[3] === '@msg' && filled(4);
  if (levels[0] === 'd') {
    if (levels[2] === '@private') return filled(3);
    return levels[1] !== '' && DEVICE_NOTICES.has(scoped.slice(levels[1].length + 3));
  }
  return false;
}

/** The backbone topic of an internal one, or undefined for topics that stay on their node (`$openpie/served`). */
export function messageTopic(internalTopic: string): string | undefined {
  if (!internalTopic.startsWith(INTERNAL_ROOT)) return undefined;
  const scoped = internalTopic.slice(INTERNAL_ROOT.length);
  return isSharedScope(scoped) ? MESSAGES + scoped : undefined;
}

export const presenceTopic = (node: string) => `${BACKBONE_ROOT}/presence/${node}`;
export const helloTopic = (node: string) => `${BACKBONE_ROOT}/hello/${node}`;
export const byeTopic = (node: string) => `${BACKBONE_ROOT}/bye/${node}`;
export const kickTopic = (deviceid: string) => `${BACKBONE_ROOT}/kick/${deviceid}`;
export const changedTopic = (node: string) => `${BACKBONE_ROOT}/changed/${node}`;
export const flushTopic = (node: string) => `${BACKBONE_ROOT}/flush/${node}`;
export const rateTopic = (node: string) => `${BACKBONE_ROOT}/rate/${node}`;
export const inspectTopic = (node: string) => `${BACKBONE_ROOT}/inspect/${node}`;
export const inspectedTopic = (node: string) => `${BACKBONE_ROOT}/inspected/${node}`;

/** The backbone's shared subscription for a device share of `name` on the internal filter `filter` (a group's `@msg`). */
export function shareFilter(name: string, filter: string): string | undefined {
  const topic = messageTopic(filter);
  return topic === undefined ? undefined : `$share/${name}/${topic}`;
}

/** What a topic received from the backbone means, or undefined when it is none of ours. */
export function parseBackboneTopic(topic: string): BackboneTopic | undefined {
  if (topic.startsWith(MESSAGES)) {
    const scoped = topic.slice(MESSAGES.length);
    return isSharedScope(scoped) ? { kind: 'message', internalTopic: INTERNAL_ROOT + scoped } : undefined;
  }
  if (!topic.startsWith(`${BACKBONE_ROOT}/`)) return undefined;
  const [kind, id, ...more] = topic.slice(BACKBONE_ROOT.length + 1).split('/');
  if (id === undefined || id === '' || more.length > 0) return undefined;
  switch (kind) {
    case 'presence':
    case 'hello':
    case 'bye':
    case 'changed':
    case 'flush':
    case 'rate':
    case 'inspect':
    case 'inspected':
      return { kind, node: id };
    case 'kick':
      return { kind, deviceid: id };
    default:
      return undefined;
  }
}
