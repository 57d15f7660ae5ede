// @ts-check
import { adminToken, forgetAdminToken, onUnauthorized } from './api.js';
import { applicationsView } from './applications-view.js';
import { deviceView } from './device-view.js';
import { devicesView } from './devices-view.js';
import { byId, h } from './dom.js';
import { importView } from './import-view.js';
import { loginView } from './login-view.js';
import { auditView } from './audit-view.js';
import { messagesView } from './messages-view.js';
import { mqttClientView } from './mqtt-client-view.js';
import { newDeviceView } from './new-device-view.js';
import { projectsView } from './projects-view.js';
import { clearError, showFlash } from './report.js';

/**
 * The console's entry: picks the view of the address's hash, and sends the operator to the login form while there
 * is no admin token (or the service refused it). Each view returns a function that stops its polling and streams.
 */

const main = byId('main', HTMLElement);
const nav = byId('nav', HTMLElement);
const decode = (/** @type {string} */ part) => decodeURIComponent(part);

/** @type {[RegExp, (match: RegExpExecArray) => () => void][]} */
const ROUTES = [
  [/^#\/projects$/, () => projectsView(main)],
  [/^#\/devices(?:\/([^/]+)(?:\/([^/]+))?)?$/, (m) => devicesView(main, {
    projectid: m[1] === undefined ? undefined : decode(m[1]), groupid: m[2] === undefined ? undefined : decode(m[2]),
  })],
  [/^#\/new-device(?:\/([^/]+))?$/, (m) => newDeviceView(main, { projectid: m[1] === undefined ? undefined : decode(m[1]) })],
  [/^#\/import$/, () => importView(main)],
  [/^#\/audit$/, () => auditView(main)],
  [/^#\/applications(?:\/([^/]+))?$/, (m) => applicationsView(main, { projectid: m[1] === undefined ? undefined : decode(m[1]) })],
  [/^#\/device\/([^/]+)$/, (m) => deviceView(main, { deviceid: decode(m[1]) })],
  [/^#\/mqtt$/, () => mqttClientView(main)],
  [/^#\/messages\/([^/]+)\/([^/]+)$/, (m) => messagesView(main, { projectid: decode(m[1]), groupid: decode(m[2]) })],
];

let leave = () => {};
/** @type {string | undefined} */
let loginNotice;

function render() {
  leave();
  clearError();
  showFlash();
  document.title = 'openpie console';
  if (!adminToken()) {
    nav.hidden = true;
    leave = loginView(main, { notice: loginNotice, onLogin: () => { loginNotice = undefined; render(); } });
    return;
  }
  nav.hidden = false;
  const hash = location.hash === '' || location.hash === '#' || location.hash === '#/' ? '#/devices' : location.hash;
  for (const [pattern, view] of ROUTES) {
    const match = pattern.exec(hash);
    if (!match) continue;
    leave = view(match);
    // The new view's heading takes the focus, so keyboard and screen-reader users start at its top.
    main.querySelector('h1')?.focus();
    return;
  }
  leave = () => {};
  main.replaceChildren(h('h1', { tabindex: -1 }, 'No such page'), h('p', {}, h('a', { href: '#/devices' }, 'Go to the devices')));
}

onUnauthorized(() => {
  forgetAdminToken();
  loginNotice = 'The service refused the admin token (changed, or the service was restarted with another): log in again.';
  render();
});

byId('logout', HTMLButtonElement).addEventListener('click', () => {
  forgetAdminToken();
  loginNotice = 'Logged out.';
  render();
});

window.addEventListener('hashchange', render);
render();
