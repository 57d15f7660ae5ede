import { AppError } from '../core/errors';
import { MESSAGE_LIMITS } from './limits';
import { MessageBus, MessageWatch } from './port';
import { groupTopic, MSG, restTopic, Scope } from './topics';

export type Group = Pick<Scope, 'projectid' | 'groupid'>;

/** A message of a group as its devices see it. */
export interface GroupMessage {
  /** `@msg/...`, without the broker's internal scope. */
  topic: string;
  payload: Buffer;
  /** Server time (ms) the message passed the broker. */
  ts: number;
}

export interface GroupTrafficDeps {
  bus: MessageBus;
  watch: MessageWatch;
  now: () => number;
}

/**
 * A group's `@msg` traffic for operators (issue 6 §2, the web console): watch it live, and publish into it as a
 * device of the group would (the same topic rules and payload limit as `PUT /v2/device/message`).
 */
export function createGroupTraffic({ bus, watch, now }: GroupTrafficDeps) {
  return {
    /** Publishes on `@msg/{topic}` in the group; returns the topic as its devices see it. */
    async publish(group: Group, topic: string, payload: Buffer): Promise<string> {
      const rest = restTopic(topic);
      if (payload.length > MESSAGE_LIMITS.maxPayloadBytes) {
        throw new AppError('PAYLOAD_TOO_LARGE', `payload is larger than ${MESSAGE_LIMITS.maxPayloadBytes} bytes`);
      }
      await bus.publish(groupTopic(group, rest), payload);
      return `${MSG}/${rest}`;
    },

    /** Every `@msg` message of the group from now on, until the returned function is called or the bus closes. */
    watch(group: Group, onMessage: (message: GroupMessage) => void, onEnd: () => void): Promise<() => Promise<void>> {
      const scopePrefix = groupTopic(group, '');
      return watch.watch(
        groupTopic(group, '#'),
        (internal, payload) => {
          if (internal.startsWith(scopePrefix)) onMessage({ topic: `${MSG}/${internal.slice(scopePrefix.length)}`, payload, ts: now() });
        },
        onEnd,
      );
    },
  };
}

export type GroupTraffic = ReturnType<typeof createGroupTraffic>;
