// @ts-check
/**
 * The libraries the console loads from the service (src/http/console-router.ts serves them from node_modules), each
 * fetched the first time a page needs it. Imported by URL at run time: there is no build step to bundle them, and
 * a plain `import` would make every page load them.
 */

const UPLOT_URL = '/console/vendor/uPlot.esm.js';
const UPLOT_CSS_URL = '/console/vendor/uPlot.min.css';
const MQTT_URL = '/console/vendor/mqtt.esm.js';

/** @type {Promise<typeof import('uplot')> | undefined} */
let uplot;

/** uPlot (its types from the installed package), with its stylesheet added to the page once. */
export function loadUplot() {
  if (!uplot) {
    document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href: UPLOT_CSS_URL }));
    uplot = import(UPLOT_URL).then((module) => module.default);
  }
  return uplot;
}

/**
 * The part of mqtt.js's client the console uses (mqtt.js 5 API, README "Client"). Written here rather than taken
 * from the package's types, which need Node's.
 * @typedef {object} MqttClient
 * @property {boolean} connected
 * @property {(event: string, listener: (...args: any[]) => void) => MqttClient} on
 * @property {(filter: string, options: {qos: 0 | 1 | 2}, callback: (err: Error | null | undefined, granted?: Granted[]) => void) => void} subscribe
 * @property {(filter: string, callback: (err: Error | null | undefined) => void) => void} unsubscribe
 * @property {(topic: string, payload: string, options: MqttPublishOptions, callback: (err: Error | null | undefined) => void) => void} publish
 * @property {(force?: boolean) => void} end
 */

/** @typedef {{topic: string, qos: number}} Granted a SUBACK's answer for one filter (qos 128 and up: refused) */

/**
 * @typedef {object} MqttPublishOptions
 * @property {0 | 1 | 2} qos
 * @property {boolean} retain
 * @property {MqttProperties} [properties]
 */

/**
 * MQTT 5 PUBLISH properties (OASIS MQTT 5.0 §3.3.2.3), by mqtt.js's names.
 * @typedef {object} MqttProperties
 * @property {string} [contentType]
 * @property {string} [responseTopic]
 * @property {Uint8Array} [correlationData]
 * @property {number} [messageExpiryInterval]
 * @property {0 | 1} [payloadFormatIndicator]
 * @property {Record<string, string | string[]>} [userProperties]
 */

/**
 * @typedef {object} MqttConnectOptions
 * @property {string} clientId
 * @property {string} username
 * @property {string} password
 * @property {4 | 5} protocolVersion
 * @property {boolean} clean
 * @property {number} keepalive
 * @property {number} reconnectPeriod
 * @property {number} connectTimeout
 * @property {'native' | 'worker' | 'auto'} timerVariant
 */

/** @type {Promise<{connect: (url: string, options: MqttConnectOptions) => MqttClient}> | undefined} */
let mqtt;

/** mqtt.js's browser bundle. */
export function loadMqtt() {
  mqtt ??= import(MQTT_URL).then((module) => module.default);
  return mqtt;
}
