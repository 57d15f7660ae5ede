/**
 * NETPIE's `@tap/...` topics (netpie reference §3.7, read from NETPIE's own Node-RED nodes: docs/mqtt.md
 * "Applications: the Flow Channel"). Each names a device as `{deviceid}:{token}` in its fourth level; messages add
 * their topic after it. The token is a credential: nothing outside this file and the admission check may show it
 * (`redacted` is what logs and the inspector get).
 */
export const TAP = '@tap';

/** What an application publishes: requests and writes on behalf of one device. */
export const TAP_REQUESTS = ['shadow/get', 'shadow/update', 'device/get', 'msg/topic', 'private/topic'] as const;
/** What an application subscribes to: one device's notices, or its group's messages. */
export const TAP_WATCHES = ['shadow/updated', 'device/changed', 'feed/updated', 'msg/topic'] as const;

export type TapRequest = (typeof TAP_REQUESTS)[number];
export type TapWatch = (typeof TAP_WATCHES)[number];

export interface TapTopic<K extends string> {
  kind: K;
  deviceid: string;
  token: string;
  /** The message topic (or filter) after the device, for `msg/topic` and `private/topic`; '' for the others. */
  rest: string;
}

const WITH_TOPIC = new Set<string>(['msg/topic', 'private/topic']);

/** Splits a `@tap/...` topic of one of `kinds`, or undefined when it is not one (or lacks a part). */
export function parseTap<K extends string>(topic: string, kinds: readonly K[]): TapTopic<K> | undefined {
  if (!topic.startsWith(`${TAP}/`)) return undefined;
  const levels = topic.split('/');
  const kind = `${levels[1]}/${levels[2]}`;
  if (!(kinds as readonly string[]).includes(kind) || levels.length < 4) return undefined;
  const colon = levels[3].indexOf(':');
  if (colon <= 0 || colon === levels[3].length - 1) return undefined;
  const rest = levels.slice(4).join('/');
  if (WITH_TOPIC.has(kind) !== (rest !== '')) return undefined;
  return { kind: kind as K, deviceid: levels[3].slice(0, colon), token: levels[3].slice(colon + 1), rest };
}

/** The topic with its device token masked, for logs and notices: `@tap/shadow/get/{deviceid}:***`. */
export function redacted(topic: string): string {
  if (!topic.startsWith(`${TAP}/`)) return topic;
  const levels = topic.split('/');
  if (levels.length >= 4 && levels[3].includes(':')) levels[3] = `${levels[3].slice(0, levels[3].indexOf(':'))}:***`;
  return levels.join('/');
}
