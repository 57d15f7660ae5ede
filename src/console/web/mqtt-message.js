// @ts-check
/** What the in-console MQTT client sends and shows (pure: no DOM, unit-tested in node). */

/** Bytes of a received payload shown; the rest is counted, as in the group's live messages. */
export const PREVIEW_BYTES = 4096;

/**
 * User properties typed one `name=value` a line (OASIS MQTT 5.0 §3.3.2.3.7: a name may repeat, and its values keep
 * their order; mqtt.js takes a repeated name as an array). Blank lines are skipped; a line without `=` is refused.
 * @param {string} text
 * @returns {{properties: Record<string, string | string[]>} | {error: string}}
 */
export function parseUserProperties(text) {
  /** @type {Record<string, string | string[]>} */
  const properties = {};
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  for (const line of lines) {
    const eq = line.indexOf('=');
    if (eq <= 0) return { error: `"${line}" is not name=value` };
    const name = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    const before = properties[name];
    properties[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return { properties };
}

/**
 * @typedef {object} PublishForm what the publish form holds
 * @property {0 | 1 | 2} qos
 * @property {boolean} retain
 * @property {string} contentType
 * @property {string} responseTopic
 * @property {string} correlationData
 * @property {string} expirySeconds
 * @property {string} userProperties
 */

/**
 * mqtt.js's publish options from the form: the MQTT 5 properties only when connected with MQTT 5 (a 3.1.1 PUBLISH
 * has none), and only those filled in.
 * @param {PublishForm} form
 * @param {4 | 5} version
 * @returns {{options: import('./vendor.js').MqttPublishOptions} | {error: string}}
 */
export function publishOptions(form, version) {
  const base = { qos: form.qos, retain: form.retain };
  if (version !== 5) return { options: base };
  const users = parseUserProperties(form.userProperties);
  if ('error' in users) return { error: `User properties: ${users.error}.` };
  const expiry = form.expirySeconds.trim();
  // Four bytes on the wire (§3.3.2.3.3).
  if (expiry !== '' && !(/^\d+$/.test(expiry) && Number(expiry) <= 0xffff_ffff)) {
    return { error: 'Message expiry: a whole number of seconds, at most 4294967295.' };
  }
  /** @type {import('./vendor.js').MqttProperties} */
  const properties = {
    ...(form.contentType !== '' ? { contentType: form.contentType } : {}),
    ...(form.responseTopic !== '' ? { responseTopic: form.responseTopic } : {}),
    ...(form.correlationData !== '' ? { correlationData: new TextEncoder().encode(form.correlationData) } : {}),
    ...(expiry !== '' ? { messageExpiryInterval: Number(expiry) } : {}),
    ...(Object.keys(users.properties).length > 0 ? { userProperties: users.properties } : {}),
  };
  return { options: Object.keys(properties).length > 0 ? { ...base, properties } : base };
}

/**
 * A received payload as text when it is UTF-8, else as hexadecimal; cut to PREVIEW_BYTES.
 * @param {Uint8Array} bytes
 * @returns {{text: string, encoding: 'utf8' | 'hex', bytes: number, truncated: boolean}}
 */
export function describePayload(bytes) {
  const head = bytes.subarray(0, PREVIEW_BYTES);
  const truncated = bytes.length > PREVIEW_BYTES;
  try {
    // `stream` holds back a character cut in half by the preview's end instead of refusing it.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: truncated });
    return { text, encoding: 'utf8', bytes: bytes.length, truncated };
  } catch {
    return { text: [...head].map((b) => b.toString(16).padStart(2, '0')).join(' '), encoding: 'hex', bytes: bytes.length, truncated };
  }
}

/**
 * The MQTT 5 properties of a received PUBLISH worth showing, as `name: value` lines (binary ones as text).
 * @param {Record<string, unknown> | undefined} properties mqtt.js's `packet.properties`
 * @returns {string[]}
 */
export function describeProperties(properties) {
  if (!properties) return [];
  /** @type {string[]} */
  const lines = [];
  for (const [name, value] of Object.entries(properties)) {
    if (name === 'userProperties' && typeof value === 'object' && value !== null) {
      for (const [key, v] of Object.entries(value)) for (const one of [v].flat()) lines.push(`${key}=${String(one)}`);
    } else if (value instanceof Uint8Array) {
      lines.push(`${name}: ${new TextDecoder().decode(value)}`);
    } else {
      lines.push(`${name}: ${String(value)}`);
    }
  }
  return lines;
}
