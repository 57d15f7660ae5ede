import { AppError } from '../core/errors';
import { isGroupMessage, PRIVATE } from '../messaging/topics';
import { QuotaGate } from './port';
import { blocksOf, MESSAGE_BLOCK } from './quota';

interface Metered {
  projectid: string;
}

/**
 * The messages quota of a device's connection (netpie reference §9, "Real-time messages"): a connection 1, each
 * subscription 1, each publish to `@msg` and each delivery 1 per started 4 KiB. Publishes and subscriptions are
 * checked without waiting, like the rate limit; the project's counters are loaded when its devices connect.
 */
export interface MessageMeter {
  /** Charges a new connection; rejects with QUOTA_EXCEEDED when the quota is spent. */
  connect(device: Metered): Promise<void>;
  /** The refusal of a subscription when the quota is spent. */
  subscribe(device: Metered): AppError | undefined;
  /** The refusal of a publish on `topic` (as the device wrote it) when the quota is spent; only `@msg` is charged. */
  publish(device: Metered, topic: string, bytes: number): AppError | undefined;
  /** A delivery to a subscriber; never refused, since it cannot be taken back. */
  delivered(device: Metered, externalTopic: string, bytes: number): void;
}

/**
 * Deliveries of the service's own replies (shadow replies, `@shadow/data/updated`, `@private/error` notices) are not
 * messages: shadow requests are metered as shadow operations, and charging their replies too would bill twice.
 */
const ERROR_NOTICE = `${PRIVATE}/error`;
const SHADOW_REPLIES = `${PRIVATE}/shadow/`;

function isServiceReply(topic: string): boolean {
  const group = isGroupMessage(topic);
  if (group === undefined) return true;
  return !group && (topic === ERROR_NOTICE || topic.startsWith(SHADOW_REPLIES));
}

export function createMessageMeter(quotas: QuotaGate, now: () => number): MessageMeter {
  // Deliveries are charged once per turn of the event loop and project: a publish to a group of 20 is 20 deliveries
  // in one go, and one charge of their sum costs what one delivery did (issue 12). They cannot be refused anyway.
  const deliveredBlocks = new Map<string, number>();
  const chargeDeliveries = () => {
    const at = now();
    for (const [projectid, messages] of deliveredBlocks) quotas.record(projectid, { messages }, at);
    deliveredBlocks.clear();
  };

  return {
    connect: (device) => quotas.spend(device.projectid, { messages: 1 }, now()),
    subscribe: (device) => quotas.spendNow(device.projectid, { messages: 1 }, now()),
    publish(device, topic, bytes) {
      if (isGroupMessage(topic) !== true) return undefined;
      return quotas.spendNow(device.projectid, { messages: blocksOf(bytes, MESSAGE_BLOCK) }, now());
    },
    delivered(device, externalTopic, bytes) {
      if (isServiceReply(externalTopic)) return;
      if (deliveredBlocks.size === 0) queueMicrotask(chargeDeliveries);
      deliveredBlocks.set(device.projectid, (deliveredBlocks.get(device.projectid) ?? 0) + blocksOf(bytes, MESSAGE_BLOCK));
    },
  };
}
