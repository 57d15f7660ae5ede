/**
 * Why a connection ended or was refused, as the inspector names it: a short, stable word for each cause, and the
 * service's own message as the event's detail.
 */
export const DISCONNECT_REASONS = {
  /** The device sent DISCONNECT. */
  clientDisconnect: 'client DISCONNECT',
  /** No packet within 1.5 times the keepalive [MQTT-3.1.2-24]. */
  keepaliveTimeout: 'keepalive timeout',
  /** The connection broke, or the device broke the protocol; the detail says how. */
  socketError: 'socket error',
  /** The socket closed without DISCONNECT and without an error. */
  connectionLost: 'connection lost',
  /** A newer connection with the same ClientID, here or on another node [MQTT-3.1.4-3]. */
  takenOver: 'taken over',
  /** The service closed it: an operator's kick, or the registry's (disabled, banned, token rotated, deleted, moved). */
  kicked: 'kicked',
  nodeStopping: 'node stopping',
} as const;

/** Refusals of a CONNECT, by the error code of the refusal (core/errors.ts). */
const REFUSALS: Readonly<Record<string, string>> = {
  INVALID_CREDENTIALS: 'bad credentials',
  DEVICE_NOT_FOUND: 'bad credentials',
  DEVICE_DISABLED: 'disabled',
  DEVICE_BANNED: 'banned',
  RATE_LIMITED: 'rate limit',
  QUOTA_EXCEEDED: 'quota',
  TOO_MANY_FAILURES: 'throttled guessing',
};

/** The inspector's name for a refusal: by its error code; a refusal without one broke a connection rule (ClientID, will). */
export function refusalReason(code: string | undefined): string {
  if (code === undefined) return 'protocol';
  return REFUSALS[code] ?? 'service unavailable';
}
