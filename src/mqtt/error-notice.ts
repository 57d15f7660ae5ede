import type { Logger } from 'pino';
import { AppError, toErrorBody } from '../core/errors';
import { MessageBus } from '../messaging/port';
import { privateTopic } from '../messaging/topics';

/** Where a device hears why the broker refused it or closed its connection: `@private/error`, which only it can subscribe to. */
export const ERROR_NOTICE_TOPIC = 'error';

/**
 * Publishes `err` as the REST error body (the one table of core/errors.ts) on the device's `@private/error` and
 * resolves once it is handed to the broker; never rejects. MQTT 3.1.1 has no negative acknowledgement for a PUBLISH
 * [MQTT-3.3.5-2], so this notice is how a device learns why its connection is about to close.
 */
export function publishErrorNotice(bus: MessageBus, deviceid: string, err: AppError, logger: Logger): Promise<void> {
  const notice = Buffer.from(JSON.stringify(toErrorBody(err)));
  return bus
    .publish(privateTopic(deviceid, ERROR_NOTICE_TOPIC), notice)
    .catch((publishErr: unknown) => logger.warn({ deviceid, code: err.code, err: publishErr }, 'error notice not delivered'));
}
