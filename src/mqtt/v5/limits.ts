import { MESSAGE_LIMITS } from '../../messaging/limits';

/**
 * The broker's MQTT limits that MQTT 5 made visible (docs/limits-and-errors.md "Limits", docs/mqtt.md "MQTT 5"). Those
 * marked "advertised" go to MQTT 5 clients in CONNACK.
 */
export const MQTT_LIMITS = {
  /**
   * Bytes of the largest packet the broker reads, any protocol version (advertised): a 256 KiB payload with room for
   * a 512-byte topic and 32 KiB of properties. A larger packet closes the connection (MQTT 5: DISCONNECT 0x95 first).
   */
  maximumPacketSize: MESSAGE_LIMITS.maxPayloadBytes + 32 * 1024,
  /**
   * QoS 1 and 2 publishes a client may have unacknowledged at once (advertised Receive Maximum); more: DISCONNECT
   * 0x93. MQTT 3.1.1 cannot advertise it, so there it caps QoS 2 publishes waiting for PUBREL, and more close the
   * connection: the bound on a client's stored QoS 2 state (aedes' GHSA-5jvp-3p2v-5qgf, missing from 2.0.0-beta.1).
   */
  inflightInbound: 100,
  /** Topic aliases a client may set on its publishes (advertised Topic Alias Maximum). */
  topicAliasMaximum: 64,
  /** Topic aliases the broker sets on what it sends, at most, within the client's own Topic Alias Maximum. */
  outboundTopicAliases: 64,
  /** Seconds: a client that asks for no keep alive or a longer one gets this Server Keep Alive. */
  serverKeepAliveMax: 600,
  /** Seconds a session may outlive its connection: a longer Session Expiry Interval is cut to it (and said so in CONNACK). */
  sessionExpiryMax: 7 * 24 * 3600,
  /**
   * QoS 1/2 messages held back for one client while it has as many unacknowledged as its Receive Maximum allows;
   * more: DISCONNECT 0x97 (a persistent session keeps them for the next connection).
   */
  outboundWaitingMax: 1000,
} as const;
