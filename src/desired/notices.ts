import type { Logger } from 'pino';
import { MessageBus } from '../messaging/port';
import { desiredDeltaTopic } from '../messaging/topics';
import { DeltaPush } from './port';

/**
 * `@shadow/desired/delta` on the bus, so the device hears it on whichever node it is connected to (the backbone carries
 * it as it carries `@shadow/data/updated`). QoS 1: a persistent session subscribed at QoS 1 gets the deltas pushed while
 * it was away. `bus` is a function because the broker that owns it is built after the services.
 */
export function createDeltaPush(bus: () => MessageBus, logger: Logger): DeltaPush {
  return {
    push: (notice) =>
      bus()
        .publish(desiredDeltaTopic(notice.deviceid), Buffer.from(JSON.stringify(notice)), { qos: 1 })
        .catch((err: unknown) => logger.warn({ err, deviceid: notice.deviceid }, 'desired delta not delivered')),
  };
}
