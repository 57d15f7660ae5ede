/**
 * The frame of the service's own reading pages (the front door and the docs): one stylesheet from this origin
 * (pages.css, served at PAGES_CSS_PATH), no script, so they run under the pages' CSP (page-headers.ts).
 */
export const PAGES_CSS_PATH = '/docs/pages.css';

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The links of the top bar, in this order on every page. */
const NAV: readonly (readonly [string, string])[] = [
  ['/console', 'Console'],
  ['/docs/', 'Docs'],
  ['/trial', 'Trial'],
  ['/openapi.json', 'OpenAPI'],
];

/** A whole page: `body` is HTML the caller has escaped; `title` is text. */
export function renderPage(title: string, body: string): string {
  const nav = NAV.map(([href, label]) => `<a href="${href}">${label}</a>`).join('');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<link rel="stylesheet" href="${PAGES_CSS_PATH}">`,
    // No favicon of its own: an empty one, so the browser does not ask /favicon.ico (a 404 in its console).
    '<link rel="icon" href="data:,">',
    '</head><body>',
    `<header class="top"><a class="brand" href="/">openpie</a><nav aria-label="Site">${nav}</nav></header>`,
    `<main>\n${body}\n</main>`,
    '</body></html>',
    '',
  ].join('\n');
}
