/**
 * The MQTT 5 properties of an Application Message that travel with it, unchanged, from its publisher to every
 * subscriber (MQTT 5.0 §3.3.2.3): the Server MUST send them unaltered [MQTT-3.3.2-4] (payload format),
 * [MQTT-3.3.2-15] (response topic), [MQTT-3.3.2-16] (correlation data), [MQTT-3.3.2-17] (user properties, in order
 * [MQTT-3.3.2-18]) and [MQTT-3.3.2-20] (content type). The message expiry interval goes on reduced by the time the
 * message waited [MQTT-3.3.2-6]. Per-connection properties (topic alias, subscription identifier) and the will's
 * delay are not part of the message and are never forwarded.
 *
 * Field names are mqtt-packet's, so a value goes to aedes and mqtt.js as it is.
 */
export interface MessageProperties {
  /** True: the payload is UTF-8 text [MQTT-3.3.2-4]. */
  payloadFormatIndicator?: boolean;
  /** Seconds the message may wait for a subscriber; queued copies expire after it. */
  messageExpiryInterval?: number;
  contentType?: string;
  /** Where a responder should publish its answer (request/response, MQTT 5.0 §4.10). */
  responseTopic?: string;
  correlationData?: Buffer;
  /** Name/value pairs; a name given several times has an array of values, in the order they were sent. */
  userProperties?: Record<string, string | string[]>;
}

const FORWARDED = ['payloadFormatIndicator', 'messageExpiryInterval', 'contentType', 'responseTopic', 'correlationData', 'userProperties'] as const;

/**
 * The message-level properties of a packet's properties, or undefined when it has none: what the broker hands on to
 * subscribers, REST's and the backbone's publishes alike. Never returns the packet's own object, which aedes shares
 * between the copies it delivers.
 */
export function messagePropertiesOf(properties: object | undefined): MessageProperties | undefined {
  if (!properties) return undefined;
  const from = properties as Record<string, unknown>;
  let picked: Record<string, unknown> | undefined;
  for (const name of FORWARDED) {
    if (from[name] === undefined) continue;
    (picked ??= {})[name] = from[name];
  }
  return picked as MessageProperties | undefined;
}
