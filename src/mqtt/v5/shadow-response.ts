import { AppError } from '../../core/errors';
import { Device } from '../../devices/device';
import { deviceTopic, internalTopic, PRIVATE, topicProblem } from '../../messaging/topics';

/** Where the answer to one shadow request goes (shadow-topics.ts `serve`). */
export interface ShadowReplyTo {
  /** The internal topic of the request's Response Topic; absent: the request's own reply topic. */
  topic?: string;
  correlationData?: Buffer;
  /** The Response Topic cannot be used: the request is answered with this error on its own reply topic. */
  refusal?: AppError;
}

/**
 * MQTT 5 request/response (§4.10) for shadow requests: a request with a Response Topic is answered there, with its
 * Correlation Data [MQTT-3.3.2-16]. The Response Topic is read in the device's own namespace: `@private/...`, which
 * only the device itself can subscribe to, since a shadow is the device's own data. Undefined for a request without
 * either property (MQTT 3.1.1, or MQTT 5 without them).
 */
export function shadowReplyTo(device: Device, properties: { responseTopic?: string; correlationData?: Buffer } | undefined): ShadowReplyTo | undefined {
  if (!properties || (properties.responseTopic === undefined && properties.correlationData === undefined)) return undefined;
  const { responseTopic, correlationData } = properties;
  if (responseTopic === undefined) return { correlationData };
  const parsed = deviceTopic(responseTopic);
  const problem =
    parsed?.family !== PRIVATE
      ? 'the Response Topic of a shadow request must be @private/... (the device\'s own namespace)'
      : topicProblem(parsed.rest, false, PRIVATE);
  if (problem || !parsed) return { correlationData, refusal: new AppError('INVALID_TOPIC', problem ?? 'invalid Response Topic') };
  return { topic: internalTopic(device, PRIVATE, parsed.rest), correlationData };
}
