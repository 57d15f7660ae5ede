/** Message limits, named in the docs/limits-and-errors.md ("Limits"). */
export const MESSAGE_LIMITS = {
  /** Bytes of one message body (REST) or PUBLISH payload (MQTT). REST: 413 above it; MQTT: the client is cut off. */
  maxPayloadBytes: 256 * 1024,
  /** Bytes of a topic as the device writes it, `@msg/` included. */
  maxTopicBytes: 512,
  /** Levels of a topic after `@msg/` or `@private/`. */
  maxTopicLevels: 32,
} as const;

/**
 * The MQTT 5 properties a REST or CoAP publisher may give a message (messaging/message-options.ts). An MQTT publisher's
 * properties are bounded by the broker's maximum packet size instead (mqtt/v5/limits.ts).
 */
export const MESSAGE_PROPERTY_LIMITS = {
  /** User properties (X-MQTT-User-Property headers) of one message. */
  maxUserProperties: 32,
  /** Bytes of all user property names and values together, and of a content type. */
  maxUserPropertyBytes: 8 * 1024,
  maxContentTypeBytes: 256,
  /** Bytes of correlation data, once decoded from base64. */
  maxCorrelationBytes: 1024,
  /** The largest message expiry interval MQTT can carry: a four-byte integer of seconds (MQTT 5.0 §3.3.2.3.3). */
  maxExpirySeconds: 0xffffffff,
} as const;
