import type { Context } from 'koa';

/**
 * The headers of a page a person uses with a credential in hand (the console, /trial), and of its files: its own
 * Content Security Policy (with `frame-ancestors 'none'`), X-Frame-Options DENY for browsers that predate CSP
 * framing (clickjacking, OWASP), no MIME sniffing and no Referer (the URL may name a device) (issue 20 §6).
 */
export function setPageHeaders(ctx: Context, csp: string): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
}
