import { AppError } from '../core/errors';
import { PublishOptions } from './port';

/**
 * How REST, CoAP and event hooks publish when they do not say (docs/device-api.md "QoS and retain"): QoS 1, so a
 * persistent session that is offline gets the message when it returns, as it would from a device's QoS 1 PUBLISH;
 * not retained.
 */
export const DEFAULT_PUBLISH: Required<Pick<PublishOptions, 'qos' | 'retain'>> = { qos: 1, retain: false };

/**
 * `?qos=` (0 or 1) and `?retain=` (true or false) of a REST or CoAP publish, like AWS IoT's HTTP publish; absent ones
 * take the defaults. QoS 2 is not offered: an HTTP or CoAP request has no handshake to make it exactly once.
 */
export function publishOptionsOf(qos: string | undefined, retain: string | undefined): Required<Pick<PublishOptions, 'qos' | 'retain'>> {
  if (qos !== undefined && qos !== '0' && qos !== '1') throw new AppError('INVALID_QUERY', `qos must be 0 or 1 (got "${qos}")`);
  if (retain !== undefined && retain !== 'true' && retain !== 'false') {
    throw new AppError('INVALID_QUERY', `retain must be true or false (got "${retain}")`);
  }
  return { qos: qos === undefined ? DEFAULT_PUBLISH.qos : qos === '1' ? 1 : 0, retain: retain === undefined ? DEFAULT_PUBLISH.retain : retain === 'true' };
}
