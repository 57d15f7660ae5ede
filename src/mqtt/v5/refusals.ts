import type { Aedes, AuthenticateError, Client } from 'aedes';
import { encodedSize, writeThenClose } from '../aedes2-patches';
import { REASON } from './reason-codes';

/** Every device id is a UUID (devices/service.ts), so a ClientID of another form cannot name a device. */
const DEVICE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isDeviceIdForm = (clientId: string) => DEVICE_ID.test(clientId);

/** The MQTT 5 CONNACK reason code for a refusal, by the error code of the refusal (core/errors.ts). */
export function connackReasonFor(code: string): number {
  switch (code) {
    case 'INVALID_CREDENTIALS':
      return REASON.BAD_USERNAME_OR_PASSWORD;
    case 'DEVICE_DISABLED':
    case 'APPLICATION_DISABLED':
      return REASON.NOT_AUTHORIZED;
    case 'DEVICE_BANNED':
      return REASON.BANNED;
    case 'QUOTA_EXCEEDED':
      return REASON.QUOTA_EXCEEDED;
    default:
      return REASON.SERVER_UNAVAILABLE;
  }
}

/**
 * Refuses an MQTT 5 CONNECT with `reasonCode` [MQTT-3.2.2-8], Session Present 0 [MQTT-3.2.2-6] and a Reason String,
 * then closes the connection [MQTT-3.2.2-7]. aedes can only send the codes its MQTT 3.1.1 return codes map to (2..5 -> 0x85..0x87,
 * 0x88), not 0x8A Banned or 0x97 Quota exceeded, and no Reason String; so this CONNACK is written here and aedes'
 * own is never sent.
 */
export function refuseConnect(client: Client, reasonCode: number, reasonString: string, done: Parameters<Aedes['authenticate']>[3]): void {
  const err = new Error(reasonString) as AuthenticateError;
  const connack = { cmd: 'connack', sessionPresent: false, reasonCode, properties: { reasonString } };
  // No Reason String when it would make the CONNACK larger than the client's Maximum Packet Size [MQTT-3.2.2-19].
  const max = client.maximumPacketSize;
  const sent = max !== undefined && encodedSize(connack, 5) > max ? { ...connack, properties: {} } : connack;
  writeThenClose(client, sent, { protocolVersion: 5 }, () => done(err, false));
}

/** An authorizePublish refusal that, for an MQTT 5 client, is a DISCONNECT with `reasonCode` (guardPublish). */
export interface DisconnectingError extends Error {
  disconnectReasonCode: number;
}

export function disconnecting(reasonCode: number, message: string): DisconnectingError {
  return Object.assign(new Error(message), { disconnectReasonCode: reasonCode });
}

const disconnectCodeOf = (err: unknown) => (err as Partial<DisconnectingError> | undefined)?.disconnectReasonCode;

/**
 * Wraps the authorizePublish hook for MQTT 5:
 * - a refusal that ends the connection for every version (rate limit, quota, backbone down) is, for an MQTT 5 client,
 *   a DISCONNECT with its reason code [MQTT-3.14.2-1] and Reason String: aedes 2 would answer PUBACK 0x87 and keep the
 *   connection, which would let a device go on past its limits; any other refusal stays aedes' PUBACK/PUBREC 0x87 with
 *   the Reason String (MQTT 5) or the closed connection (MQTT 3.1.1 [MQTT-3.3.5-2]);
 * - a packet already refused when it was parsed (inbound.ts) is dropped here: its connection is closing.
 */
export function guardPublish(hook: Aedes['authorizePublish'], dropped: WeakSet<object>): Aedes['authorizePublish'] {
  return (client, packet, done) => {
    if (dropped.has(packet)) return;
    hook(client, packet, (err) => {
      const reasonCode = disconnectCodeOf(err);
      if (reasonCode === undefined || !client || client.version !== 5 || client.closed) return done(err);
      client.disconnect({ reasonCode, properties: { reasonString: err!.message } }, () => done(err));
    });
  };
}

/**
 * How the service closes a live session for MQTT 5 clients (session-control.ts): 0x8E when the device connected
 * again elsewhere [MQTT-3.1.4-3], 0x98 Administrative action for changes to the device; the reason as Reason String.
 */
export function closeSession(client: Client, reason: string, takenOver: boolean): void {
  const reasonCode = takenOver ? REASON.SESSION_TAKEN_OVER : REASON.ADMINISTRATIVE_ACTION;
  client.disconnect({ reasonCode, properties: { reasonString: reason } });
}
