import type { Logger } from 'pino';
import { AppError } from '../core/errors';
import { MessageBus } from '../messaging/port';
import { ServiceMetrics } from '../metrics/service-metrics';
import { KeyedRateLimiter } from '../ratelimit/keyed-rate-limiter';
import { publishErrorNotice } from './error-notice';

/**
 * The broker's side of the per-device rate limit, the same buckets as the REST Device API. MQTT 3.1.1 has no
 * reason code and no negative acknowledgement for a PUBLISH [MQTT-3.3.5-2], so a device over its limit first gets a
 * notice on `@private/error`, and only then is its connection closed.
 */
export interface MqttPublishLimit {
  /** Takes a token for one PUBLISH; false when the device is over its limit (then call refusePublish). */
  allowPublish(deviceid: string): boolean;
  /**
   * Publishes the notice through `bus` and resolves with it once it is written to the device; close the connection
   * next (MQTT 5: with the notice's message as Reason String).
   */
  refusePublish(deviceid: string, bus: MessageBus): Promise<AppError>;
}

export function createMqttPublishLimit(
  limiter: KeyedRateLimiter,
  metrics: Pick<ServiceMetrics, 'countRateLimitRefusal'>,
  logger: Logger,
): MqttPublishLimit {
  // A packet batch read from the socket is authorised concurrently, so several publishes of one flood can be refused
  // before the connection closes: they share one notice.
  const refusing = new Map<string, Promise<AppError>>();
  const retryAfter = new Map<string, number>();

  return {
    allowPublish(deviceid) {
      const decision = limiter.take(deviceid);
      if (decision.allowed) return true;
      metrics.countRateLimitRefusal('mqtt');
      retryAfter.set(deviceid, decision.retryAfterSeconds);
      return false;
    },

    refusePublish(deviceid, bus) {
      const seconds = retryAfter.get(deviceid) ?? 1;
      retryAfter.delete(deviceid);
      const pending = refusing.get(deviceid);
      if (pending) return pending;
      const { ratePerSecond, burst } = limiter.limits;
      logger.info({ deviceid, ratePerSecond, burst }, 'mqtt publish over the rate limit; disconnecting');
      const refusal = new AppError(
        'RATE_LIMITED',
        `this device is over its limit of ${ratePerSecond} publishes per second (bursts of ${burst}); disconnected`,
        { retryAfter: seconds },
      );
      const done = publishErrorNotice(bus, deviceid, refusal, logger)
        .then(() => refusal)
        .finally(() => refusing.delete(deviceid));
      refusing.set(deviceid, done);
      return done;
    },
  };
}
