// @ts-check
/**
 * A tiny element builder. Text always goes in as text nodes, never as HTML, so a device alias or a message payload
 * can never inject markup; there is no `style` attribute either, which the page's CSP would refuse.
 */

/** @typedef {string | number | boolean | undefined | null | ((event: Event) => void)} AttributeValue */
/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * @param {Element} el
 * @param {Record<string, AttributeValue>} attrs
 * @param {Child[]} children
 */
function fill(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'number' ? String(child) : child);
  }
}

/**
 * `h('a', {href: '#/x'}, 'text')`: attributes named `on…` with a function add an event listener.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, AttributeValue>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  fill(el, attrs, children);
  return el;
}

/**
 * The element with this id, of the expected type; throws when the page does not have it (a bug, not a state).
 * @template {Element} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
export function byId(id, type) {
  const el = document.getElementById(id);
  if (!(el instanceof type)) throw new Error(`#${id} is missing or not a ${type.name}`);
  return el;
}

/** Local date and time, to the second: what an operator reads in a table or a log. */
export const formatTime = (/** @type {number} */ ms) =>
  new Date(ms).toLocaleString(undefined, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Tells screen readers about a change that happened off focus (a device came online, a write was applied). */
export function announce(/** @type {string} */ text) {
  const announcer = byId('announcer', HTMLDivElement);
  announcer.textContent = '';
  // A new text node, even with the same words, is read again.
  window.setTimeout(() => (announcer.textContent = text), 50);
}
