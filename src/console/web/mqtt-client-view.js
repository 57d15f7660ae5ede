// @ts-check
import { admin, ApiError } from './api.js';
import { projectsOf } from './devices-view.js';
import { announce, formatTime, h } from './dom.js';
import { describePayload, describeProperties, publishOptions } from './mqtt-message.js';
import { reportError } from './report.js';
import { loadMqtt } from './vendor.js';

/** Messages kept on the page, newest first; older ones are dropped so a busy topic cannot fill the tab's memory. */
export const MAX_MESSAGES = 200;
/** Seconds before a connection attempt is given up (mqtt.js `connectTimeout`). */
const CONNECT_TIMEOUT_MS = 10_000;

/** MQTT over WebSocket on this page's own origin: path /mqtt of the HTTP(S) port (docs/mqtt.md "Transports"). */
const brokerUrl = () => `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/mqtt`;

/** @param {string} id @param {string} label @param {Record<string, string | boolean | number>} [attrs] */
const field = (id, label, attrs = {}) => {
  const input = h('input', { id, name: id, autocomplete: 'off', spellcheck: 'false', ...attrs });
  return { input, row: h('div', {}, h('label', { for: id }, label), input) };
};
/** @param {string} id */
const qosSelect = (id) => h('select', { id, name: id }, ...[0, 1, 2].map((q) => h('option', { value: String(q) }, `QoS ${q}`)));

/**
 * A device's MQTT client in the page (issue 24 §3), over MQTT over WebSocket with mqtt.js: connect with credentials
 * pasted in or those of a test device made here, subscribe, publish with QoS, retain and MQTT 5 properties, and see
 * what arrives. The credentials live in this view's memory only (never in storage): leaving the page disconnects
 * and forgets them, and the service never shows stored ones again.
 * @param {HTMLElement} main
 * @returns {() => void}
 */
export function mqttClientView(main) {
  const abort = new AbortController();
  const { signal } = abort;
  /** @type {import('./vendor.js').MqttClient | undefined} */
  let client;
  /** @type {4 | 5} */
  let version = 5;

  const clientId = field('mqtt-clientid', 'ClientID (the device id)', { required: true });
  const username = field('mqtt-username', 'Username (the device token)', { required: true });
  const password = field('mqtt-password', 'Password (the device secret; optional unless the device requires it)', { type: 'password' });
  const versionSelect = h('select', { id: 'mqtt-version', name: 'mqtt-version' },
    h('option', { value: '5' }, 'MQTT 5'), h('option', { value: '4' }, 'MQTT 3.1.1'));
  const clean = h('input', { id: 'mqtt-clean', type: 'checkbox', checked: true });
  const keepalive = field('mqtt-keepalive', 'Keep alive (seconds)', { type: 'number', min: 0, max: 65535, value: 60 });
  const connectButton = h('button', { type: 'submit', id: 'mqtt-connect' }, 'Connect');
  const disconnectButton = h('button',
    { type: 'button', id: 'mqtt-disconnect', class: 'secondary', disabled: true, onclick: () => disconnect() }, 'Disconnect');
  const state = h('p', { id: 'mqtt-state', role: 'status', 'data-state': 'disconnected' }, 'Not connected.');

  const testProject = field('mqtt-test-project', 'Project', { list: 'mqtt-projects' });
  const testGroup = field('mqtt-test-group', 'Group', { value: 'console' });
  const projects = h('datalist', { id: 'mqtt-projects' });
  const testResult = h('p', { id: 'mqtt-test-result', role: 'status' });
  const testDevice = h('details', { id: 'mqtt-test-device', class: 'card-inner' },
    h('summary', {}, 'No device at hand? Create a test device'),
    h('p', { class: 'hint' }, 'Makes a device (POST /v2/admin/devices) and fills in its credentials: they are shown this once ',
      'and kept only by this page. Delete the device from its page when done.'),
    testProject.row, testGroup.row, projects,
    h('button', { type: 'button', id: 'mqtt-create-device', class: 'secondary', onclick: () => void createTestDevice() }, 'Create a test device'));

  const subTopic = field('mqtt-sub-topic', 'Topic filter', { value: '@msg/#', required: true });
  const subQos = qosSelect('mqtt-sub-qos');
  const subscriptions = h('ul', { id: 'mqtt-subscriptions', class: 'plain-list' });

  const pubTopic = field('mqtt-pub-topic', 'Topic', { value: '@msg/hello', required: true });
  const pubPayload = h('textarea', { id: 'mqtt-pub-payload', rows: 3, spellcheck: 'false' }, '{"hello": "from the console"}');
  const pubQos = qosSelect('mqtt-pub-qos');
  const pubRetain = h('input', { id: 'mqtt-pub-retain', type: 'checkbox' });
  const contentType = field('mqtt-pub-content-type', 'Content type');
  const responseTopic = field('mqtt-pub-response-topic', 'Response topic');
  const correlation = field('mqtt-pub-correlation', 'Correlation data (text)');
  const expiry = field('mqtt-pub-expiry', 'Message expiry (seconds)', { inputmode: 'numeric' });
  const userProps = h('textarea', { id: 'mqtt-pub-user-props', rows: 3, spellcheck: 'false', placeholder: 'name=value, one a line' });
  const v5 = h('fieldset', { id: 'mqtt-v5-properties', class: 'stacked' }, h('legend', {}, 'MQTT 5 properties (optional)'),
    contentType.row, responseTopic.row, correlation.row, expiry.row,
    h('div', {}, h('label', { for: 'mqtt-pub-user-props' }, 'User properties'), userProps));
  const pubResult = h('p', { id: 'mqtt-pub-result', role: 'status' });
  const pubError = h('p', { id: 'mqtt-pub-error', class: 'error', role: 'alert' });

  const messages = h('ol', { id: 'mqtt-messages', class: 'messages', reversed: true });
  const live = h('fieldset', { id: 'mqtt-live', class: 'columns bare', disabled: true });
  live.append(
    h('section', { class: 'card', 'aria-labelledby': 'mqtt-sub-heading' },
      h('h2', { id: 'mqtt-sub-heading' }, 'Subscribe'),
      h('form', { id: 'mqtt-sub-form', onsubmit: subscribe }, subTopic.row,
        h('div', {}, h('label', { for: 'mqtt-sub-qos' }, 'Maximum QoS'), subQos),
        h('button', { type: 'submit' }, 'Subscribe')),
      subscriptions),
    h('section', { class: 'card', 'aria-labelledby': 'mqtt-pub-heading' },
      h('h2', { id: 'mqtt-pub-heading' }, 'Publish'),
      h('form', { id: 'mqtt-pub-form', onsubmit: publish }, pubTopic.row,
        h('label', { for: 'mqtt-pub-payload' }, 'Payload'), pubPayload,
        h('div', { class: 'toolbar' }, h('label', { for: 'mqtt-pub-qos' }, 'QoS'), pubQos,
          h('label', { class: 'check' }, pubRetain, 'Retain')),
        v5,
        h('button', { type: 'submit' }, 'Publish'), pubResult, pubError)),
  );

  main.replaceChildren(
    h('h1', { tabindex: -1 }, 'MQTT client'),
    h('p', { class: 'hint' }, 'Acts as a device over MQTT over WebSocket at ', h('code', { id: 'mqtt-url' }, brokerUrl()),
      '. The credentials stay in this page\'s memory: leaving or reloading it disconnects and forgets them.'),
    h('section', { class: 'card', 'aria-labelledby': 'mqtt-connect-heading' },
      h('h2', { id: 'mqtt-connect-heading' }, 'Connect'),
      testDevice,
      testResult,
      h('form', { id: 'mqtt-connect-form', onsubmit: connect },
        clientId.row, username.row, password.row,
        h('div', { class: 'toolbar' }, h('label', { for: 'mqtt-version' }, 'Version'), versionSelect,
          h('label', { class: 'check' }, clean, 'Clean start')),
        keepalive.row,
        h('div', { class: 'actions' }, connectButton, disconnectButton),
        state)),
    live,
    h('section', { class: 'card', 'aria-labelledby': 'mqtt-messages-heading' },
      h('h2', { id: 'mqtt-messages-heading' }, 'Messages received'),
      h('button', { type: 'button', class: 'secondary', onclick: () => messages.replaceChildren() }, 'Clear'),
      messages),
  );
  versionSelect.addEventListener('change', () => (v5.disabled = versionSelect.value !== '5'));

  /**
   * @param {'disconnected' | 'connecting' | 'connected' | 'closed' | 'refused'} name
   * @param {string} text
   */
  function setState(name, text) {
    state.dataset.state = name;
    state.textContent = text;
    const connected = name === 'connected';
    live.disabled = !connected;
    connectButton.disabled = name === 'connecting' || connected;
    disconnectButton.disabled = !(name === 'connecting' || connected);
    announce(text);
  }

  async function createTestDevice() {
    testResult.textContent = '';
    testResult.classList.remove('error');
    try {
      const alias = `mqtt-client-${crypto.randomUUID().slice(0, 8)}`;
      /** @type {{deviceid: string, token: string, secret: string, alias: string, projectid: string}} */
      const device = await admin('POST', '/v2/admin/devices', {
        body: { projectid: testProject.input.value.trim(), groupid: testGroup.input.value.trim(), alias }, signal,
      });
      clientId.input.value = device.deviceid;
      username.input.value = device.token;
      password.input.value = device.secret;
      testDevice.open = false;
      testResult.textContent = `Created ${device.alias} in ${device.projectid}; its credentials are filled in below.`;
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401) {
        testResult.classList.add('error');
        testResult.textContent = `${err.message} (${err.code})`;
      } else {
        reportError(err);
      }
    }
  }

  /** @param {Event} event */
  async function connect(event) {
    event.preventDefault();
    disconnect();
    version = versionSelect.value === '5' ? 5 : 4;
    setState('connecting', `Connecting to ${brokerUrl()}…`);
    /** @type {Awaited<ReturnType<typeof loadMqtt>>} */
    let mqtt;
    try {
      mqtt = await loadMqtt();
    } catch (err) {
      setState('disconnected', 'The MQTT library could not be loaded.');
      reportError(err);
      return;
    }
    if (signal.aborted) return;
    const c = mqtt.connect(brokerUrl(), {
      clientId: clientId.input.value.trim(),
      username: username.input.value.trim(),
      password: password.input.value,
      protocolVersion: version,
      clean: clean.checked,
      keepalive: Number(keepalive.input.value) || 0,
      // A refusal (wrong credentials, a banned device) is shown, not retried: connecting again is one click.
      reconnectPeriod: 0,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // mqtt.js would otherwise run its keep-alive timer in a Worker made from a blob: URL, which the page's CSP
      // (script-src 'self') refuses. The price: a hidden tab's timers are throttled, so a keep-alive shorter than a
      // minute may lapse while the tab is in the background.
      timerVariant: 'native',
    });
    client = c;
    c.on('connect', (/** @type {{sessionPresent: boolean}} */ connack) => {
      const resumed = connack.sessionPresent ? ', session resumed' : '';
      setState('connected', `Connected as ${clientId.input.value.trim()} (MQTT ${version === 5 ? '5' : '3.1.1'}${resumed}).`);
    });
    c.on('error', (/** @type {Error} */ err) => { if (client === c) setState('refused', `Refused: ${err.message}`); });
    c.on('disconnect', (/** @type {{reasonCode?: number}} */ packet) => {
      if (client === c) setState('closed', `The service disconnected this client (reason code ${packet.reasonCode ?? 0}).`);
    });
    c.on('close', () => {
      if (client !== c || state.dataset.state === 'refused' || state.dataset.state === 'closed') return;
      setState('closed', 'Connection closed.');
    });
    c.on('message', (/** @type {string} */ topic, /** @type {Uint8Array} */ payload, /** @type {any} */ packet) =>
      showMessage(topic, payload, packet));
  }

  function disconnect() {
    const c = client;
    client = undefined;
    if (!c) return;
    c.end(true);
    subscriptions.replaceChildren();
    setState('disconnected', 'Disconnected.');
  }

  /** @param {Event} event */
  function subscribe(event) {
    event.preventDefault();
    const topic = subTopic.input.value.trim();
    const qos = /** @type {0 | 1 | 2} */ (Number(subQos.value));
    client?.subscribe(topic, { qos }, (err, granted) => {
      if (err) return reportError(err);
      const code = granted?.[0]?.qos ?? 128;
      // A SUBACK return code of 128 or more is a refusal (OASIS MQTT 5.0 §3.9.3; 3.1.1 §3.9.3: 0x80).
      const refused = code >= 128;
      subscriptions.querySelector(`li[data-topic="${CSS.escape(topic)}"]`)?.remove();
      subscriptions.append(h('li', { 'data-topic': topic, 'data-granted': code, class: refused ? 'error' : undefined },
        h('code', {}, topic), refused ? ` refused (code ${code})` : ` granted QoS ${code} `,
        refused ? null : h('button', { type: 'button', class: 'link-button', onclick: () => unsubscribe(topic) }, 'Unsubscribe')));
      announce(refused ? `Subscription to ${topic} refused` : `Subscribed to ${topic}`);
    });
  }

  /** @param {string} topic */
  function unsubscribe(topic) {
    client?.unsubscribe(topic, (err) => {
      if (err) return reportError(err);
      subscriptions.querySelector(`li[data-topic="${CSS.escape(topic)}"]`)?.remove();
    });
  }

  /** @param {Event} event */
  function publish(event) {
    event.preventDefault();
    pubResult.textContent = '';
    pubError.textContent = '';
    const built = publishOptions({
      qos: /** @type {0 | 1 | 2} */ (Number(pubQos.value)), retain: pubRetain.checked, contentType: contentType.input.value,
      responseTopic: responseTopic.input.value, correlationData: correlation.input.value, expirySeconds: expiry.input.value,
      userProperties: userProps.value,
    }, version);
    if ('error' in built) {
      pubError.textContent = built.error;
      return;
    }
    const topic = pubTopic.input.value.trim();
    client?.publish(topic, pubPayload.value, built.options, (err) => {
      if (err) pubError.textContent = `Not published: ${err.message}`;
      else pubResult.textContent = `Published to ${topic} at ${formatTime(Date.now())}${built.options.qos > 0 ? ' (acknowledged)' : ''}.`;
    });
  }

  /**
   * @param {string} topic
   * @param {Uint8Array} payload
   * @param {{qos: number, retain: boolean, properties?: Record<string, unknown>}} packet
   */
  function showMessage(topic, payload, packet) {
    const body = describePayload(payload);
    const props = describeProperties(packet.properties);
    messages.prepend(h('li', { 'data-topic': topic, 'data-qos': packet.qos, 'data-retain': String(packet.retain) },
      h('div', { class: 'message-head' },
        h('span', { class: 'topic' }, topic),
        h('span', { class: 'meta' }, `QoS ${packet.qos}${packet.retain ? ', retained' : ''} · ${formatTime(Date.now())} · ${body.bytes} bytes` +
          (body.encoding === 'hex' ? ' (hex)' : '') + (body.truncated ? ', cut' : ''))),
      props.length > 0 ? h('pre', { class: 'meta properties' }, props.join('\n')) : null,
      h('pre', { class: 'payload' }, body.text)));
    while (messages.children.length > MAX_MESSAGES) messages.lastElementChild?.remove();
  }

  projectsOf(signal).then((list) => {
    projects.replaceChildren(...list.map((p) => h('option', { value: p.projectid })));
    if (testProject.input.value === '' && list.length > 0) testProject.input.value = list[0].projectid;
  }, (err) => { if (!signal.aborted) reportError(err); });

  return () => {
    abort.abort();
    disconnect();
  };
}
