import type { Logger } from 'pino';
import { MessageBus } from '../messaging/port';
import { shadowUpdatedTopic } from '../messaging/topics';
import { JsonObject } from '../core/json';
import { FieldWarning, warningMembers } from '../schema/warnings';
import { ShadowNotice, ShadowNotices } from './port';
import { Shadow } from './shadow';

/**
 * `@shadow/data/updated` on the bus, so the device hears of it on whichever node it is connected to. At QoS 1: a
 * persistent session subscribed at QoS 1 gets the notices of the writes made while it was away, and a notice is on the
 * backbone before its write is answered, so the notices of writes made one after the other through different nodes
 * arrive in that order (docs/mqtt.md). `bus` is a function because the broker that owns it is built after the shadow
 * service.
 */
export function createShadowNotices(bus: () => MessageBus, logger: Logger): ShadowNotices {
  return {
    announce: (notice) =>
      bus()
        .publish(shadowUpdatedTopic(notice.deviceid), Buffer.from(JSON.stringify(notice)), { qos: 1 })
        .catch((err: unknown) => logger.warn({ err, deviceid: notice.deviceid, rev: notice.rev }, 'shadow notice not delivered')),
  };
}

/** `@shadow/data/updated` of an applied write (docs/mqtt.md): what it wrote, then the shadow's metadata after it. */
export const shadowNotice = (after: Shadow, written: JsonObject, merged: boolean, warnings: readonly FieldWarning[]): ShadowNotice => ({
  deviceid: after.deviceid,
  data: written,
  rev: after.rev,
  modified: after.modified,
  timestamp: after.timestamp,
  ...(merged ? {} : { merged: false as const }),
  ...warningMembers(warnings),
});
