import type { Logger } from 'pino';
import { MessageBus } from '../messaging/port';
import { feedUpdatedTopic, shadowUpdatedTopic } from '../messaging/topics';
import { Point } from '../timeseries/point';
import { FIELD_TAG } from '../timeseries/shadow-points';
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
    /**
     * `@feed/data/updated` for applications (mqtt/flow-channel/), as NETPIE's Node-RED feed node reads it:
     * `{"deviceid","newdata":{field: value},"timestamp"}`, one notice per write, of its newest point time (a batch's
     * newest item, as triggers see only that one: a batch of 100 items would otherwise be 100 messages on every
     * write's path). QoS 0: a live view, not a record (the points themselves are in the data store).
     */
    recorded: async (deviceid, points) => {
      const newest = newestOf(points);
      await bus()
        .publish(feedUpdatedTopic(deviceid), Buffer.from(JSON.stringify({ deviceid, newdata: newest.fields, timestamp: newest.timestamp })), { qos: 0 })
        .catch((err: unknown) => logger.warn({ err, deviceid }, 'feed notice not delivered'));
    },
  };
}

/** The fields and values of the newest time among a write's points (at least one). */
function newestOf(points: readonly Point[]): { timestamp: number; fields: Record<string, number> } {
  const timestamp = points.reduce((newest, p) => Math.max(newest, p.timestamp), -Infinity);
  const fields: Record<string, number> = {};
  for (const point of points) if (point.timestamp === timestamp) fields[point.tags[FIELD_TAG]] = point.value;
  return { timestamp, fields };
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
