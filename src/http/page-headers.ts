import type { Context } from 'koa';

/**
 * Everything from this origin and nothing inline: no inline script or style, no eval, no framing, no plugins, and the
 * page's own requests go to this origin only. `style-src 'self'` allows styles set through the DOM (Swagger UI);
 * `img-src data:` covers Swagger's icons and the console's empty favicon.
 */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The headers of a page a person uses with a credential in hand (the console, /trial), and of its files: the
 * Content Security Policy above (with `frame-ancestors 'none'`), X-Frame-Options DENY for browsers that predate CSP
 * framing (clickjacking, OWASP), no MIME sniffing and no Referer (the URL may name a device) (issue 20 §6).
 */
export function setPageHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
}
