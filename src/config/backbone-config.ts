import * as t from 'io-ts';
import { randomBytes } from 'node:crypto';

/** Where the MQTT backbone is and how a node logs in (BACKBONE_URL, BACKBONE_USERNAME, BACKBONE_PASSWORD). */
export interface BackboneSettings {
  /** The broker's address without credentials, so it can be logged. */
  readonly url: string;
  readonly username: string | undefined;
  readonly password: string | undefined;
}

const MQTT_PROTOCOLS = ['mqtt:', 'mqtts:', 'ws:', 'wss:'];

/** An mqtt://, mqtts://, ws:// or wss:// URL, credentials allowed (`mqtt://user:password@host:port`). */
export const MqttUrl = new t.Type<string, string, unknown>(
  'MqttUrl',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && URL.canParse(u) && MQTT_PROTOCOLS.includes(new URL(u).protocol)
      ? t.success(u)
      : t.failure(u, c, 'must be an mqtt://, mqtts://, ws:// or wss:// URL'),
  String,
);

/** One MQTT topic level a ClientID can carry too: letters, digits, `.`, `_` and `-`, up to 64. */
export const NodeId = new t.Type<string, string, unknown>(
  'NodeId',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(u)
      ? t.success(u)
      : t.failure(u, c, 'must be 1-64 letters, digits, ".", "_" or "-"'),
  String,
);

/** NODE_ID when unset: random, so two nodes started from one configuration never share a session on the backbone. */
export const randomNodeId = () => `node-${randomBytes(4).toString('hex')}`;

/**
 * The backbone's settings from BACKBONE_URL and the credentials: BACKBONE_USERNAME and BACKBONE_PASSWORD win over
 * those in the URL, which are taken out of it.
 */
export function backboneSettings(url: string, username: string | undefined, password: string | undefined): BackboneSettings {
  const parsed = new URL(url);
  const inUrl = (part: string) => (part === '' ? undefined : decodeURIComponent(part));
  const settings = { username: username ?? inUrl(parsed.username), password: password ?? inUrl(parsed.password) };
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString(), ...settings };
}
