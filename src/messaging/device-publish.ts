import { AppError } from '../core/errors';
import { MESSAGE_LIMITS } from './limits';
import { deviceTopic, internalTopic, MSG, Scope, topicProblem } from './topics';

/**
 * The internal topic of a message a device publishes over MQTT on `topic` (as it wrote it): devices publish to
 * `@msg/...` of their own group only (netpie reference §3.1), no wildcards, within the topic and payload limits.
 * Throws INVALID_TOPIC or PAYLOAD_TOO_LARGE. REST and CoAP name the topic without its family (topics.ts restTopic).
 */
export function acceptPublish(scope: Scope, topic: string, payloadBytes: number): string {
  const parsed = deviceTopic(topic);
  if (parsed?.family !== MSG) throw new AppError('INVALID_TOPIC', `devices may publish only to ${MSG}/...`);
  const problem = topicProblem(parsed.rest, false, parsed.family);
  if (problem) throw new AppError('INVALID_TOPIC', problem);
  if (payloadBytes > MESSAGE_LIMITS.maxPayloadBytes) throw new AppError('PAYLOAD_TOO_LARGE', 'payload too large');
  return internalTopic(scope, parsed.family, parsed.rest);
}
