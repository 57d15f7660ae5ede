import type { Logger } from 'pino';
import { AppError, toErrorBody } from '../errors';
import { MessageBus } from '../messaging/port';
import { deviceTopic, MSG, privateTopic } from '../messaging/topics';
import { ERROR_NOTICE_TOPIC } from '../ratelimit/mqtt-publish-limit';
import { QuotaGate } from './port';
import { blocksOf, MESSAGE_BLOCK } from './quota';

interface Connected {
  deviceid: string;
  projectid: string;
}

/**
 * The messages quota as the MQTT broker meets it (netpie reference §9, "Real-time messages"): CONNECT 1, each
 * subscription 1, each PUBLISH to `@msg` and each delivery 1 per started 4 KiB. Publishes and subscriptions are
 * checked without waiting, like the rate limit; the project's counters are loaded when its devices connect.
 */
export interface MqttMessageQuota {
  /** The refusal of a CONNECT when the quota is spent. */
  connect(device: Connected): Promise<AppError | undefined>;
  /** False when the quota is spent (the subscription then gets SUBACK 0x80). */
  allowSubscribe(device: Connected): boolean;
  /** False when the quota is spent; then call refusePublish. Only `@msg` publishes are charged. */
  allowPublish(device: Connected, topic: string, bytes: number): boolean;
  /**
   * Sends the refusal to the device's `@private/error` and resolves once it is written; the broker then closes the
   * connection (MQTT 3.1.1 has no negative acknowledgement [MQTT-3.3.5-2]).
   */
  refusePublish(device: Connected, bus: MessageBus): Promise<void>;
  /** A delivery to a subscriber; never refused, since it cannot be taken back. */
  delivered(device: Connected, externalTopic: string, bytes: number): void;
}

/**
 * Deliveries of the service's own replies (shadow replies, `@shadow/data/updated`, `@private/error` notices) are not
 * messages: shadow requests are metered as shadow operations, and charging their replies too would bill twice.
 */
function isServiceReply(topic: string): boolean {
  const parsed = deviceTopic(topic);
  if (!parsed) return true;
  return parsed.family !== MSG && (parsed.rest === ERROR_NOTICE_TOPIC || parsed.rest.startsWith('shadow/'));
}

export function createMqttMessageQuota(quotas: QuotaGate, logger: Logger, now: () => number): MqttMessageQuota {
  const refusals = new Map<string, AppError>();
  const onlyQuota = (err: unknown): AppError => {
    if (err instanceof AppError && err.code === 'QUOTA_EXCEEDED') return err;
    throw err;
  };

  return {
    async connect(device) {
      try {
        await quotas.spend(device.projectid, { messages: 1 }, now());
        return undefined;
      } catch (err) {
        return onlyQuota(err);
      }
    },
    allowSubscribe(device) {
      return quotas.spendNow(device.projectid, { messages: 1 }, now()) === undefined;
    },
    allowPublish(device, topic, bytes) {
      if (deviceTopic(topic)?.family !== MSG) return true;
      const refusal = quotas.spendNow(device.projectid, { messages: blocksOf(bytes, MESSAGE_BLOCK) }, now());
      if (refusal) refusals.set(device.deviceid, refusal);
      return refusal === undefined;
    },
    async refusePublish(device, bus) {
      const refusal = refusals.get(device.deviceid);
      refusals.delete(device.deviceid);
      if (!refusal) return;
      logger.info({ deviceid: device.deviceid, quota: refusal.extra.quota }, 'mqtt publish over the messages quota; disconnecting');
      const body = toErrorBody(refusal);
      const notice = Buffer.from(JSON.stringify({ ...body, message: `${body.message}; disconnected` }));
      await bus.publish(privateTopic(device.deviceid, ERROR_NOTICE_TOPIC), notice).catch((err: unknown) =>
        logger.warn({ err, deviceid: device.deviceid }, 'quota notice not delivered'),
      );
    },
    delivered(device, externalTopic, bytes) {
      if (!isServiceReply(externalTopic)) quotas.record(device.projectid, { messages: blocksOf(bytes, MESSAGE_BLOCK) }, now());
    },
  };
}
