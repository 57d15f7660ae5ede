/** Message limits, named in the README ("Limits"). */
export const MESSAGE_LIMITS = {
  /** Bytes of one message body (REST) or PUBLISH payload (MQTT). REST: 413 above it; MQTT: the client is cut off. */
  maxPayloadBytes: 256 * 1024,
  /** Bytes of a topic as the device writes it, `@msg/` included. */
  maxTopicBytes: 512,
  /** Levels of a topic after `@msg/` or `@private/`. */
  maxTopicLevels: 32,
} as const;
