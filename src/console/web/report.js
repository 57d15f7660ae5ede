// @ts-check
import { ApiError, tokenRefused } from './api.js';
import { byId } from './dom.js';

/**
 * Shows what went wrong in the page's one alert banner. Aborted requests (the view was left) are not errors; a
 * refused admin token sends the operator back to the login form.
 * @param {unknown} err
 */
export function reportError(err) {
  if (err instanceof DOMException && err.name === 'AbortError') return;
  if (err instanceof ApiError && err.status === 401) {
    tokenRefused();
    return;
  }
  const banner = byId('error', HTMLParagraphElement);
  banner.textContent = err instanceof ApiError ? `${err.message} (${err.code})` : `Something went wrong: ${String(err)}`;
  banner.hidden = false;
}

/**
 * Runs an action of a view: its result line and refusal line are cleared first; a refusal the operator can act on
 * (4xx, not a refused login) is said in `error`, prefixed with `what`; anything else goes to the banner.
 * @param {HTMLElement} result
 * @param {HTMLElement} error
 * @param {string} what
 * @param {() => Promise<void>} action
 */
export async function runShowingRefusal(result, error, what, action) {
  result.textContent = '';
  error.textContent = '';
  try {
    await action();
  } catch (err) {
    if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401) error.textContent = `${what}: ${err.message} (${err.code})`;
    else reportError(err);
  }
}

/** A notice that outlives one change of view, e.g. "Deleted lamp" on the list the console goes back to. */
/** @type {string | undefined} */
let pendingFlash;
export const flash = (/** @type {string} */ text) => (pendingFlash = text);

/** Shows the pending notice, if any, in the page's status line; clears the one of an earlier view. */
export function showFlash() {
  const line = byId('flash', HTMLParagraphElement);
  line.textContent = pendingFlash ?? '';
  line.hidden = pendingFlash === undefined;
  pendingFlash = undefined;
}

export function clearError() {
  const banner = byId('error', HTMLParagraphElement);
  banner.hidden = true;
  banner.textContent = '';
}

/**
 * Runs `task` now and then every `ms` after each run ends (never two at once), until `signal` aborts.
 * @param {() => Promise<void>} task
 * @param {number} ms
 * @param {AbortSignal} signal
 */
export function every(task, ms, signal) {
  /** @type {number | undefined} */
  let timer;
  const run = async () => {
    try {
      await task();
    } catch (err) {
      if (!signal.aborted) reportError(err);
    }
    if (!signal.aborted) timer = window.setTimeout(run, ms);
  };
  signal.addEventListener('abort', () => window.clearTimeout(timer), { once: true });
  void run();
}
