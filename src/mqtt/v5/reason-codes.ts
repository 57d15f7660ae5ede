/**
 * The MQTT 5 reason codes the broker sends (MQTT 5.0 §2.4, and the tables of §3.2.2.2 CONNACK, §3.4.2.1 PUBACK,
 * §3.9.3 SUBACK and §3.14.2.1 DISCONNECT). aedes sends some of them itself; mqtt/v5/ sends the others.
 */
export const REASON = {
  /** DISCONNECT: No Local on a shared subscription [MQTT-3.8.3-4]. */
  PROTOCOL_ERROR: 0x82,
  /** DISCONNECT: the session store failed on a call this connection made (mqtt/store-failures.ts). */
  IMPLEMENTATION_SPECIFIC_ERROR: 0x83,
  /** CONNACK: the ClientID is not a device id (every device id is a UUID), or it is empty. */
  CLIENT_IDENTIFIER_NOT_VALID: 0x85,
  /** CONNACK: unknown device or wrong token (one answer for both), or a wrong secret. */
  BAD_USERNAME_OR_PASSWORD: 0x86,
  /** CONNACK: the device is disabled. PUBACK/PUBREC/SUBACK: outside the device's namespace (aedes sends these). */
  NOT_AUTHORIZED: 0x87,
  /** CONNACK: the registry cannot answer. */
  SERVER_UNAVAILABLE: 0x88,
  /** DISCONNECT: the message backbone or the session store is down, so a QoS 1/2 publish cannot be accepted now. */
  SERVER_BUSY: 0x89,
  /** CONNACK: the device is banned. */
  BANNED: 0x8a,
  /** DISCONNECT: another connection with the same ClientID took the session over [MQTT-3.1.4-3]. */
  SESSION_TAKEN_OVER: 0x8e,
  /** SUBACK: a filter that breaks MQTT's wildcard rules [MQTT-4.7.1-2] [MQTT-4.7.1-3]. */
  TOPIC_FILTER_INVALID: 0x8f,
  /** CONNACK: a Will Topic the device may not publish to (mqtt/will-topic.ts). */
  TOPIC_NAME_INVALID: 0x90,
  /** DISCONNECT: more QoS 1/2 publishes in flight than the broker's Receive Maximum [MQTT-3.3.4-9]. */
  RECEIVE_MAXIMUM_EXCEEDED: 0x93,
  /** DISCONNECT: the device is over its per-device publish rate. */
  MESSAGE_RATE_TOO_HIGH: 0x96,
  /** CONNACK, SUBACK, DISCONNECT: the project's messages quota is spent. */
  QUOTA_EXCEEDED: 0x97,
  /** DISCONNECT: an administrator disabled, banned, deleted or moved the device, or rotated its token. */
  ADMINISTRATIVE_ACTION: 0x98,
  /** CONNACK: too many failed credential checks from this address (ratelimit/failure-throttle.ts). */
  CONNECTION_RATE_EXCEEDED: 0x9f,
} as const;
