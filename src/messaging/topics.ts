import { AppError } from '../errors';
import { MESSAGE_LIMITS } from './limits';

/**
 * Device topics and the broker's internal namespace. Devices write `@msg/...` and `@private/...`; inside the broker
 * every topic carries its scope, so devices of other groups that use the same topic string never meet ("transparent
 * virtual host", netpie reference §3.1 and §3.7). Internal topics start with `$` so that no `#` filter matches them
 * [MQTT-4.7.2-1], and devices never see the prefix.
 */
const GROUP_PREFIX = '$openpie/g/';
const DEVICE_PREFIX = '$openpie/d/';

export const MSG = '@msg';
export const PRIVATE = '@private';

export interface Scope {
  projectid: string;
  groupid: string;
  deviceid: string;
}

/** Why a topic written by a client (REST path, `?topic=`, MQTT publish) is unusable, or undefined. */
export function topicProblem(topic: string, allowWildcards: boolean): string | undefined {
  if (topic.length === 0) return 'topic is empty';
  if (Buffer.byteLength(topic) > MESSAGE_LIMITS.maxTopicBytes) return `topic is longer than ${MESSAGE_LIMITS.maxTopicBytes} bytes`;
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

/** A REST topic (spec 4.2): the caller writes `{any}/{topic}` without the `@msg` prefix. */
export function restTopic(topic: string): string {
  if (topic.startsWith('@')) throw new AppError('INVALID_TOPIC', 'topic must not start with @: the service adds @msg/ itself');
  const problem = topicProblem(topic, false);
  if (problem) throw new AppError('INVALID_TOPIC', problem);
  return topic;
}

/** Splits `@msg/a/b` into its family and the rest, or undefined for any other topic. */
export function deviceTopic(topic: string): { family: typeof MSG | typeof PRIVATE; rest: string } | undefined {
  for (const family of [MSG, PRIVATE] as const) {
    if (topic.startsWith(`${family}/`)) return { family, rest: topic.slice(family.length + 1) };
  }
  return undefined;
}

export const groupTopic = (s: Pick<Scope, 'projectid' | 'groupid'>, rest: string) =>
  `${GROUP_PREFIX}${s.projectid}/${s.groupid}/${MSG}/${rest}`;

export const privateTopic = (deviceid: string, rest: string) => `${DEVICE_PREFIX}${deviceid}/${PRIVATE}/${rest}`;

/** The internal topic a device's own topic or filter maps to. */
export function internalTopic(scope: Scope, family: typeof MSG | typeof PRIVATE, rest: string): string {
  return family === MSG ? groupTopic(scope, rest) : privateTopic(scope.deviceid, rest);
}

/**
 * The topic a device should see for an internal topic, or undefined when the message is not for this device (a
 * second check beside the rewritten subscriptions, so a bug there cannot leak another group's traffic).
 */
export function externalTopic(scope: Scope, internal: string): string | undefined {
  const groupPrefix = `${GROUP_PREFIX}${scope.projectid}/${scope.groupid}/`;
  if (internal.startsWith(groupPrefix)) return internal.slice(groupPrefix.length);
  const devicePrefix = `${DEVICE_PREFIX}${scope.deviceid}/`;
  if (internal.startsWith(devicePrefix)) return internal.slice(devicePrefix.length);
  return undefined;
}
