import type { Logger } from 'pino';
import { AppError } from '../core/errors';
import { MessageBus } from '../messaging/port';
import { publishErrorNotice } from './error-notice';

/**
 * How a PUBLISH that admission refused (the rate limit, the messages quota: devices/admission.ts) is told before the
 * connection closes: MQTT 3.1.1 has no reason code and no negative acknowledgement for a PUBLISH [MQTT-3.3.5-2], so
 * the refusal goes to the device's `@private/error` first; MQTT 5 hears the same message as Reason String.
 */
export interface RefusalNotices {
  /** Resolves with the notice, once written to the device; close the connection next. */
  tell(deviceid: string, refusal: AppError): Promise<AppError>;
}

export function createRefusalNotices(bus: MessageBus, logger: Logger): RefusalNotices {
  // A packet batch read from the socket is authorised concurrently, so several publishes of one flood can be refused
  // before the connection closes: they share one notice.
  const telling = new Map<string, Promise<AppError>>();
  return {
    tell(deviceid, refusal) {
      const pending = telling.get(deviceid);
      if (pending) return pending;
      logger.info({ deviceid, code: refusal.code, quota: refusal.extra.quota }, 'mqtt publish refused; disconnecting');
      const notice = new AppError(refusal.code, `${refusal.message}; disconnected`, refusal.extra);
      const told = publishErrorNotice(bus, deviceid, notice, logger)
        .then(() => notice)
        .finally(() => telling.delete(deviceid));
      telling.set(deviceid, told);
      return told;
    },
  };
}
