// @ts-check
import { admin, adminToken, ApiError } from './api.js';
import { formatTime, h } from './dom.js';
import { readEventStream } from './event-stream.js';
import { reportError } from './report.js';

/** Messages kept on screen; older ones are dropped from the page as new ones arrive. */
export const MAX_SHOWN = 200;

/**
 * @typedef {object} GroupMessage one `message` event of GET /v2/admin/groups/{projectid}/{groupid}/messages
 * @property {string} topic `@msg/...`
 * @property {string} payload text, or base64 when `encoding` is base64; cut to a preview when `truncated`
 * @property {'utf8' | 'base64'} encoding
 * @property {number} bytes the whole payload's length
 * @property {boolean} truncated
 * @property {number} ts server time (ms)
 */

/**
 * A group's `@msg` traffic, live, newest first, and a box to publish into the group.
 * @param {HTMLElement} main
 * @param {{projectid: string, groupid: string}} group
 * @returns {() => void}
 */
export function messagesView(main, { projectid, groupid }) {
  const abort = new AbortController();
  const { signal } = abort;
  const path = `/v2/admin/groups/${encodeURIComponent(projectid)}/${encodeURIComponent(groupid)}/messages`;

  const state = h('p', { id: 'stream-state', class: 'meta', 'data-state': 'connecting' }, 'Connecting…');
  const list = h('ol', { id: 'messages', class: 'messages', role: 'log', 'aria-labelledby': 'live-heading' });
  const empty = h('p', { id: 'no-messages', class: 'hint' },
    'No messages yet. What devices of this group publish on @msg/… appears here as it passes.');
  const topic = h('input', { id: 'publish-topic', name: 'topic', required: true, autocomplete: 'off', spellcheck: 'false',
    placeholder: 'home/lamp', 'aria-describedby': 'publish-topic-help' });
  const payload = h('textarea', { id: 'publish-payload', name: 'payload', rows: 3, spellcheck: 'false' });
  const result = h('p', { id: 'publish-result', role: 'status' });
  const error = h('p', { id: 'publish-error', class: 'error', role: 'alert' });

  main.replaceChildren(
    h('p', {}, h('a', { href: `#/devices/${encodeURIComponent(projectid)}` }, `Devices of project ${projectid}`)),
    h('h1', { tabindex: -1 }, `Messages of group ${groupid}`),
    h('p', { class: 'meta' }, `Project ${projectid}. Every message on @msg/# in this group, from MQTT, REST, CoAP and this page.`),
    h('section', { class: 'card', 'aria-labelledby': 'publish-heading' },
      h('h2', { id: 'publish-heading' }, 'Publish'),
      h('form', { id: 'publish-form', onsubmit: publish },
        h('label', { for: 'publish-topic' }, 'Topic'),
        h('div', { class: 'prefixed' }, h('span', { class: 'prefix', 'aria-hidden': 'true' }, '@msg/'), topic),
        h('p', { id: 'publish-topic-help', class: 'hint' }, 'Published on @msg/ followed by this topic, e.g. home/lamp. No + or #.'),
        h('label', { for: 'publish-payload' }, 'Payload (text)'),
        payload,
        h('button', { type: 'submit' }, 'Publish'),
        result,
        error)),
    h('section', { class: 'card', 'aria-labelledby': 'live-heading' },
      h('h2', { id: 'live-heading' }, 'Live messages'),
      state,
      empty,
      list),
  );

  /** @param {Event} event */
  async function publish(event) {
    event.preventDefault();
    result.textContent = '';
    error.textContent = '';
    try {
      const reply = await admin('POST', path, { body: { topic: topic.value.trim(), payload: payload.value }, signal });
      result.textContent = `Done: ${reply.message}.`;
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401) error.textContent = `${err.message} (${err.code})`;
      else reportError(err);
    }
  }

  /** @param {GroupMessage} m */
  function show(m) {
    const details = `${m.bytes} byte${m.bytes === 1 ? '' : 's'}${m.encoding === 'base64' ? ', not text: shown as base64' : ''}` +
      `${m.truncated ? ', preview of the start' : ''}`;
    list.prepend(h('li', { class: 'message', 'data-topic': m.topic },
      h('div', { class: 'message-head' },
        h('time', { datetime: new Date(m.ts).toISOString() }, formatTime(m.ts)),
        h('code', { class: 'topic' }, m.topic),
        h('span', { class: 'meta' }, details)),
      h('pre', { class: 'payload' }, m.payload)));
    while (list.children.length > MAX_SHOWN) list.lastElementChild?.remove();
    empty.hidden = true;
  }

  /** @param {'connecting' | 'live' | 'reconnecting' | 'listening' | 'ended'} value @param {string} text */
  function setState(value, text) {
    state.dataset.state = value;
    state.textContent = text;
  }

  readEventStream(path, {
    token: adminToken(),
    signal,
    onState: (s) => setState(s, s === 'live' ? 'Connected…' : s === 'connecting' ? 'Connecting…' : 'Connection lost; reconnecting…'),
    onEvent: ({ event, data }) => {
      if (event === 'ready') setState('listening', `Live: listening on @msg/# in group ${groupid}.`);
      else if (event === 'message') show(JSON.parse(data));
      else if (event === 'dropped') {
        const { count } = JSON.parse(data);
        list.prepend(h('li', { class: 'notice' }, `${count} message${count === 1 ? ' was' : 's were'} skipped: this page could not keep up.`));
      }
    },
  }).catch((err) => {
    setState('ended', 'Not connected.');
    reportError(err);
  });

  return () => abort.abort();
}
