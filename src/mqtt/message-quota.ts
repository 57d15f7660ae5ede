import type { Logger } from 'pino';
import { AppError } from '../core/errors';
import { MessageBus } from '../messaging/port';
import { isGroupMessage, PRIVATE } from '../messaging/topics';
import { QuotaGate } from '../quotas/port';
import { blocksOf, MESSAGE_BLOCK } from '../quotas/quota';
import { ERROR_NOTICE_TOPIC, publishErrorNotice } from './error-notice';

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
   * Sends the refusal to the device's `@private/error` and resolves with it once it is written; the broker then closes
   * the connection (MQTT 3.1.1 has no negative acknowledgement [MQTT-3.3.5-2]; MQTT 5 hears it as Reason String).
   */
  refusePublish(device: Connected, bus: MessageBus): Promise<AppError | undefined>;
  /** A delivery to a subscriber; never refused, since it cannot be taken back. */
  delivered(device: Connected, externalTopic: string, bytes: number): void;
}

/**
 * Deliveries of the service's own replies (shadow replies, `@shadow/data/updated`, `@private/error` notices) are not
 * messages: shadow requests are metered as shadow operations, and charging their replies too would bill twice.
 */
const ERROR_NOTICE = `${PRIVATE}/${ERROR_NOTICE_TOPIC}`;
const SHADOW_REPLIES = `${PRIVATE}/shadow/`;

function isServiceReply(topic: string): boolean {
  const group = isGroupMessage(topic);
  if (group === undefined) return true;
  return !group && (topic === ERROR_NOTICE || topic.startsWith(SHADOW_REPLIES));
}

export function createMqttMessageQuota(quotas: QuotaGate, logger: Logger, now: () => number): MqttMessageQuota {
  const refusals = new Map<string, AppError>();
  const onlyQuota = (err: unknown): AppError => {
    if (err instanceof AppError && err.code === 'QUOTA_EXCEEDED') return err;
    throw err;
  };

  // Deliveries are charged once per turn of the event loop and project: a publish to a group of 20 is 20 deliveries
  // in one go, and one charge of their sum costs what one delivery did (issue 12). They cannot be refused anyway.
  const deliveredBlocks = new Map<string, number>();
  const chargeDeliveries = () => {
    const at = now();
    for (const [projectid, messages] of deliveredBlocks) quotas.record(projectid, { messages }, at);
    deliveredBlocks.clear();
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
      if (isGroupMessage(topic) !== true) return true;
      const refusal = quotas.spendNow(device.projectid, { messages: blocksOf(bytes, MESSAGE_BLOCK) }, now());
      if (refusal) refusals.set(device.deviceid, refusal);
      return refusal === undefined;
    },
    async refusePublish(device, bus) {
      const refusal = refusals.get(device.deviceid);
      refusals.delete(device.deviceid);
      if (!refusal) return undefined;
      logger.info({ deviceid: device.deviceid, quota: refusal.extra.quota }, 'mqtt publish over the messages quota; disconnecting');
      const notice = new AppError(refusal.code, `${refusal.message}; disconnected`, refusal.extra);
      await publishErrorNotice(bus, device.deviceid, notice, logger);
      return notice;
    },
    delivered(device, externalTopic, bytes) {
      if (isServiceReply(externalTopic)) return;
      if (deliveredBlocks.size === 0) queueMicrotask(chargeDeliveries);
      deliveredBlocks.set(device.projectid, (deliveredBlocks.get(device.projectid) ?? 0) + blocksOf(bytes, MESSAGE_BLOCK));
    },
  };
}
