// @ts-check
import { admin } from './api.js';
import { announce, h } from './dom.js';

/**
 * @typedef {object} Credentials what the answer that made or re-keyed a device issued (the registry keeps only
 * digests: no later read shows them; issue 20 §2). A rotation issues one of the two.
 * @property {string} deviceid
 * @property {string} [token]
 * @property {string} [secret]
 * @property {string} alias
 */

/** The MQTT port, asked once per page (GET /v2/admin/service): the console does not know how the service was started. */
/** @type {Promise<number> | undefined} */
let mqttPort;
const mqttPortOf = () => (mqttPort ??= admin('GET', '/v2/admin/service').then((/** @type {{mqtt: {port: number}}} */ s) => s.mqtt.port));

/**
 * Quotes a shell word: inside single quotes nothing is special but the quote itself.
 * @param {string} word
 */
const shellQuote = (word) => (/^[A-Za-z0-9@%+=:,./_-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/**
 * The mosquitto_sub line that connects as the device and prints what its group publishes (ClientID = deviceid,
 * username = token; docs/mqtt.md). Host: the one this page came from.
 * @param {Credentials} c
 * @param {number} port
 */
export const mosquittoSubLine = (/** @type {Credentials & {token: string}} */ c, port) =>
  `mosquitto_sub -h ${shellQuote(location.hostname)} -p ${port} -i ${shellQuote(c.deviceid)} -u ${shellQuote(c.token)} -t '@msg/#' -v`;

/**
 * Copies `text`: the Clipboard API where the page is a secure context (https, localhost), else the selected text of
 * a field with execCommand, which browsers still allow in reaction to a click.
 * @param {string} text
 * @param {HTMLInputElement} field the field that shows the text
 */
async function copy(text, field) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  field.focus();
  field.select();
  if (!document.execCommand('copy')) throw new Error('the browser refused to copy');
}

/**
 * One value with a Copy button; `name` makes the ids (`cred-token`, `copy-token`), after `prefix` when given
 * (`app-secret`, `copy-app-secret`: applications-view.js).
 * @param {string} name
 * @param {string} label
 * @param {string} value
 * @param {HTMLElement} status where "Copied" is said
 * @param {string} [prefix]
 */
export function copyRow(name, label, value, status, prefix) {
  const fieldId = prefix === undefined ? `cred-${name}` : `${prefix}-${name}`;
  const field = h('input', { id: fieldId, readonly: true, value, spellcheck: 'false', class: 'copy-field' });
  const button = h('button', {
    type: 'button', id: prefix === undefined ? `copy-${name}` : `copy-${prefix}-${name}`, class: 'copy', 'aria-label': `Copy ${label}`,
    onclick: () => copy(value, field).then(
      () => {
        status.textContent = `${label} copied.`;
        announce(status.textContent);
      },
      (err) => (status.textContent = `Could not copy: ${err instanceof Error ? err.message : String(err)}; select the text instead.`),
    ),
  }, 'Copy');
  return h('div', { class: 'copy-row' }, h('label', { for: fieldId }, label), h('div', { class: 'copy-line' }, field, button));
}

/**
 * A device's credentials, shown once after it is made or re-keyed: the service shows them nowhere else, so neither
 * can the console. Only those the answer issued are shown (a token rotation issues no secret).
 * @param {Credentials} c
 * @param {string} heading
 * @returns {HTMLElement}
 */
export function credentialsPanel(c, heading) {
  const status = h('p', { id: 'copy-status', class: 'meta', role: 'status' });
  const { token, secret } = c;
  const rows = h('div', { class: 'copy-rows' },
    copyRow('deviceid', 'Device ID (ClientID)', c.deviceid, status),
    ...(token === undefined ? [] : [copyRow('token', 'Token', token, status)]),
    ...(secret === undefined ? [] : [copyRow('secret', 'Secret', secret, status)]),
    ...(token === undefined ? [] : [copyRow('device-auth', 'REST Authorization header', `Device ${c.deviceid}:${token}`, status)]));
  const panel = h('section', { id: 'new-credentials', class: 'card credentials', 'aria-labelledby': 'credentials-heading' },
    h('h2', { id: 'credentials-heading' }, heading),
    h('p', { class: 'notice' }, `Copy them now: ${c.alias}'s credentials are shown only this once; the service keeps `,
      'only their digests. A lost token or secret is replaced by rotating it.'),
    rows,
    status);
  if (token !== undefined) {
    void mqttPortOf().then((port) => rows.append(copyRow('mosquitto-sub', 'Listen with mosquitto_sub', mosquittoSubLine({ ...c, token }, port), status)), () => {});
  }
  return panel;
}
