/**
 * CoAP response codes (RFC 7252 §5.9 and §12.1.2; 4.08 from RFC 7959, 4.09 from RFC 8132, 4.29 from RFC 8516). The service's errors carry
 * HTTP statuses (errors.ts); this is the one place where they become CoAP codes.
 */
export const CONTENT = '2.05';
export const CHANGED = '2.04';
export type SuccessCode = typeof CONTENT | typeof CHANGED;

const CODE_OF_STATUS: Readonly<Record<number, string>> = {
  400: '4.00',
  401: '4.01',
  403: '4.03',
  404: '4.04',
  405: '4.05',
  /** HTTP's body that did not arrive in time is CoAP's Request Entity Incomplete (RFC 7959 §2.9.2). */
  408: '4.08',
  409: '4.09',
  /** A conditional write whose If-Match / If-None-Match failed (RFC 7252 §5.9.2.8). */
  412: '4.12',
  413: '4.13',
  415: '4.15',
  429: '4.29',
  500: '5.00',
  503: '5.03',
};

/** The CoAP code of an error's HTTP status; a status missing from the table falls back to its class. */
export function coapCodeOf(status: number): string {
  return CODE_OF_STATUS[status] ?? (status >= 400 && status < 500 ? '4.00' : '5.00');
}
