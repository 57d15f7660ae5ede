import { AppError } from '../core/errors';
import { MESSAGE_LIMITS } from './limits';

/**
 * Device topics and the broker's internal namespace. Devices write `@msg/...` and `@private/...`; inside the broker
 * every topic carries its scope, so devices of other groups that use the same topic string never meet ("transparent
 * virtual host", netpie reference §3.1 and §3.7). Internal topics start with `$` so that no `#` filter matches them
 * [MQTT-4.7.2-1], and devices never see the prefix.
 */
const GROUP_PREFIX = '$openpie/g/';
const DEVICE_PREFIX = '$openpie/d/';
/** An application connection's own replies (the Flow Channel, mqtt/flow-channel/), by its ClientID. */
const APPLICATION_PREFIX = '$openpie/a/';

export const MSG = '@msg';
export const PRIVATE = '@private';
export type Family = typeof MSG | typeof PRIVATE;

/**
 * Notices of the device's own shadow writes (netpie reference §3.2, §3.4). Devices may only subscribe to it, and it
 * lives in the device's private namespace: no other device can ever see it.
 */
export const SHADOW_UPDATED = '@shadow/data/updated';

/**
 * The delta between the device's desired document and its `data` (issue 25 §2, docs/mqtt.md): like SHADOW_UPDATED,
 * devices may only subscribe to it, in their private namespace.
 */
export const DESIRED_DELTA = '@shadow/desired/delta';

export interface Scope {
  projectid: string;
  groupid: string;
  deviceid: string;
}

/**
 * Why a topic or filter is unusable, or undefined. `topic` is what follows `{family}/`; the byte limit counts the
 * topic as a device writes it, family included.
 */
export function topicProblem(topic: string, allowWildcards: boolean, family: Family = MSG): string | undefined {
  if (topic.length === 0) return 'topic is empty';
  if (Buffer.byteLength(topic) + family.length + 1 > MESSAGE_LIMITS.maxTopicBytes) {
    return `topic is longer than ${MESSAGE_LIMITS.maxTopicBytes} bytes (with ${family}/)`;
  }
  if (!topic.isWellFormed() || /[\u0000-\u001f\u007f]/.test(topic)) return 'topic has control characters or invalid Unicode';
  const levels = topic.split('/');
  if (levels.length > MESSAGE_LIMITS.maxTopicLevels) return `topic has more than ${MESSAGE_LIMITS.maxTopicLevels} levels`;
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i];
    if (level === '') return 'topic has an empty level';
    if (!allowWildcards && /[+#]/.test(level)) return 'wildcards + and # are not allowed when publishing';
    if (allowWildcards && level.length > 1 && /[+#]/.test(level)) return 'a wildcard must fill a whole level';
    if (level === '#' && i !== levels.length - 1) return '# must be the last level';
  }
  return undefined;
}

/** A filter that breaks MQTT's wildcard rules [MQTT-4.7.1-2, 4.7.1-3]: `#` not last, or a wildcard inside a level. */
export function malformedFilter(filter: string): boolean {
  const levels = filter.split('/');
  return levels.some((l, i) => (l.length > 1 && /[+#]/.test(l)) || (l === '#' && i !== levels.length - 1));
}

/**
 * A REST topic (spec 4.2): the caller writes `{any}/{topic}` without the `@msg` (or `@private`) prefix, which the
 * service adds. A caller who writes the prefix anyway, as on MQTT, means the same topic: it is dropped once
 * (docs/decisions.md "REST topics with their prefix"); any other leading `@` is refused.
 */
export function restTopic(topic: string, family: Family = MSG): string {
  const given = topic.startsWith(`${family}/`) ? topic.slice(family.length + 1) : topic;
  if (given.startsWith('@')) throw new AppError('INVALID_TOPIC', `topic must not start with @: the service adds ${family}/ itself`);
  const problem = topicProblem(given, false, family);
  if (problem) throw new AppError('INVALID_TOPIC', problem);
  return given;
}

const MSG_PREFIX = `${MSG}/`;
const PRIVATE_PREFIX = `${PRIVATE}/`;

/** Splits `@msg/a/b` into its family and the rest, or undefined for any other topic. */
export function deviceTopic(topic: string): { family: Family; rest: string } | undefined {
  if (topic.startsWith(MSG_PREFIX)) return { family: MSG, rest: topic.slice(MSG_PREFIX.length) };
  if (topic.startsWith(PRIVATE_PREFIX)) return { family: PRIVATE, rest: topic.slice(PRIVATE_PREFIX.length) };
  return undefined;
}

/** `@msg/...` (true), `@private/...` (false), without splitting the topic; undefined for any other topic. */
export function isGroupMessage(topic: string): boolean | undefined {
  if (topic.startsWith(MSG_PREFIX)) return true;
  if (topic.startsWith(PRIVATE_PREFIX)) return false;
  return undefined;
}

export const groupTopic = (s: Pick<Scope, 'projectid' | 'groupid'>, rest: string) =>
  `${GROUP_PREFIX}${s.projectid}/${s.groupid}/${MSG}/${rest}`;

export const privateTopic = (deviceid: string, rest: string) => `${DEVICE_PREFIX}${deviceid}/${PRIVATE}/${rest}`;

export const shadowUpdatedTopic = (deviceid: string) => `${DEVICE_PREFIX}${deviceid}/${SHADOW_UPDATED}`;
export const desiredDeltaTopic = (deviceid: string) => `${DEVICE_PREFIX}${deviceid}/${DESIRED_DELTA}`;

/** The internal topic of a notice the device may subscribe to (`@shadow/data/updated`, `@shadow/desired/delta`), or undefined. */
export function ownNoticeTopic(deviceid: string, topic: string): string | undefined {
  if (topic === SHADOW_UPDATED) return shadowUpdatedTopic(deviceid);
  if (topic === DESIRED_DELTA) return desiredDeltaTopic(deviceid);
  return undefined;
}

/** A device's status changes, for applications only (devices/status-notices.ts): no device may subscribe to it. */
export const STATUS_CHANGED = '@device/status/changed';
export const statusChangedTopic = (deviceid: string) => `${DEVICE_PREFIX}${deviceid}/${STATUS_CHANGED}`;

/** The points a device's writes recorded, for applications only (shadows/notices.ts). */
export const FEED_UPDATED = '@feed/data/updated';
export const feedUpdatedTopic = (deviceid: string) => `${DEVICE_PREFIX}${deviceid}/${FEED_UPDATED}`;

/** Where the replies to one application connection go: its `@private/...`, never shared with another connection. */
export const applicationPrivateTopic = (clientId: string, rest: string) => `${APPLICATION_PREFIX}${clientId}/${PRIVATE}/${rest}`;

/**
 * What an application sees for an internal topic (docs/mqtt.md "Applications: the Flow Channel"): a device notice
 * with the device id appended (`@shadow/data/updated/{deviceid}`), a group message with its project and group
 * (`@msg/{projectid}/{groupid}/...`), its own replies as `@private/...`; undefined for anything else.
 */
export function applicationTopic(clientId: string, internal: string): string | undefined {
  if (internal.startsWith(GROUP_PREFIX)) {
    // $openpie/g/{projectid}/{groupid}/@msg/{rest} -> @msg/{projectid}/{groupid}/{rest}
    const [projectid, groupid, family, ...rest] = internal.slice(GROUP_PREFIX.length).split('/');
    return family === MSG && rest.length > 0 ? `${MSG}/${projectid}/${groupid}/${rest.join('/')}` : undefined;
  }
  if (internal.startsWith(DEVICE_PREFIX)) {
    const slash = internal.indexOf('/', DEVICE_PREFIX.length);
    const deviceid = internal.slice(DEVICE_PREFIX.length, slash);
    const notice = internal.slice(slash + 1);
    return notice === SHADOW_UPDATED || notice === STATUS_CHANGED || notice === FEED_UPDATED ? `${notice}/${deviceid}` : undefined;
  }
  const own = `${APPLICATION_PREFIX}${clientId}/`;
  return internal.startsWith(own) ? internal.slice(own.length) : undefined;
}

/** The internal topic a device's own topic or filter maps to. */
export function internalTopic(scope: Scope, family: Family, rest: string): string {
  return family === MSG ? groupTopic(scope, rest) : privateTopic(scope.deviceid, rest);
}

/** The internal filter a device's subscription maps to, or undefined when the device may not subscribe to it. */
export function internalFilter(scope: Scope, filter: string): string | undefined {
  const notice = ownNoticeTopic(scope.deviceid, filter);
  if (notice !== undefined) return notice;
  const parsed = deviceTopic(filter);
  if (!parsed || topicProblem(parsed.rest, true, parsed.family)) return undefined;
  return internalTopic(scope, parsed.family, parsed.rest);
}

/**
 * The prefix of the topics that share a retained-message limit with `internal`: its group's (`$openpie/g/p/g/`) or
 * its device's (`$openpie/d/id/`). Another topic is a scope of its own.
 */
export function retainedScopeOf(internal: string): string {
  const levels = internal.split('/');
  const depth = internal.startsWith(GROUP_PREFIX) ? 4 : internal.startsWith(DEVICE_PREFIX) ? 3 : 0;
  return depth > 0 && levels.length > depth ? `${levels.slice(0, depth).join('/')}/` : internal;
}

/** True for a topic as devices write it, i.e. not one of the broker's internal topics (which all start with `$`). */
export const isDeviceFacing = (topic: string) =>
  topic.charCodeAt(0) !== 0x24 && (topic === SHADOW_UPDATED || topic === DESIRED_DELTA || isGroupMessage(topic) !== undefined);

/** A scope's internal prefixes, made once per scope object: the broker asks for them on every delivery (issue 12). */
const prefixesOf = new WeakMap<Scope, { group: string; device: string }>();

export function scopePrefixes(scope: Scope): { group: string; device: string } {
  let prefixes = prefixesOf.get(scope);
  if (!prefixes) {
    prefixes = { group: `${GROUP_PREFIX}${scope.projectid}/${scope.groupid}/`, device: `${DEVICE_PREFIX}${scope.deviceid}/` };
    prefixesOf.set(scope, prefixes);
  }
  return prefixes;
}

/**
 * The topic a device should see for an internal topic, or undefined when the message is not for this device (a
 * second check beside the rewritten subscriptions, so a bug there cannot leak another group's traffic).
 */
export function externalTopic(scope: Scope, internal: string): string | undefined {
  const { group, device } = scopePrefixes(scope);
  if (internal.startsWith(group)) return internal.slice(group.length);
  if (internal.startsWith(device)) return internal.slice(device.length);
  return undefined;
}

/** True when `topic` matches `filter` by MQTT's wildcard rules; `a/#` matches `a` too [MQTT-4.7.1-2]. */
export function filterMatches(filter: string, topic: string): boolean {
  const filterLevels = filter.split('/');
  const topicLevels = topic.split('/');
  for (let i = 0; i < filterLevels.length; i++) {
    if (filterLevels[i] === '#') return true;
    if (i >= topicLevels.length || (filterLevels[i] !== '+' && filterLevels[i] !== topicLevels[i])) return false;
  }
  return filterLevels.length === topicLevels.length;
}
