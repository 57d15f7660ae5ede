// @ts-check
import { ApiError, checkAdminToken, saveAdminToken } from './api.js';
import { h } from './dom.js';

/**
 * The login form: the admin token, or an operator key (what it may do follows its role), is checked with one admin call before it is kept (sessionStorage).
 * @param {HTMLElement} main
 * @param {{notice?: string, onLogin: () => void}} options `notice`: why the operator is here again
 * @returns {() => void}
 */
export function loginView(main, { notice, onLogin }) {
  const input = h('input', { id: 'admin-token', name: 'admin-token', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
  const error = h('p', { id: 'login-error', class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit' }, 'Log in');

  /** @param {Event} event */
  async function submit(event) {
    event.preventDefault();
    const token = input.value.trim();
    if (token === '') return;
    button.disabled = true;
    error.textContent = '';
    try {
      await checkAdminToken(token);
      saveAdminToken(token);
      onLogin();
    } catch (err) {
      error.textContent = err instanceof ApiError && err.status === 401
        ? 'That is neither the admin token of this service nor a current operator key.'
        : `Could not log in: ${err instanceof Error ? err.message : String(err)}`;
      input.focus();
    } finally {
      button.disabled = false;
    }
  }

  main.replaceChildren(
    h('form', { id: 'login-form', class: 'card narrow', onsubmit: submit },
      h('h1', { tabindex: -1 }, 'Log in'),
      notice ? h('p', { class: 'notice', role: 'status' }, notice) : null,
      h('p', { class: 'hint', id: 'admin-token-help' },
        'The admin token was printed on the service\'s first start and is kept in DATA_DIR/admin-token; an operator ',
        'key (opk.…) was shown once when its operator was made. ',
        'It stays in this tab only, until you log out or close it.'),
      h('label', { for: 'admin-token' }, 'Admin token or operator key'),
      input,
      button,
      error,
    ),
  );
  input.setAttribute('aria-describedby', 'admin-token-help');
  input.focus();
  return () => {};
}
