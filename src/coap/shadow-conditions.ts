import { AppError } from '../core/errors';
import { RevCondition } from '../shadows/condition';

interface RawOption {
  name: string | number;
  value: unknown;
}

/** An ETag option holds 1 to 8 bytes (RFC 7252 §5.10.6); so does each If-Match, which may also be empty. */
const MAX_ETAG_BYTES = 8;

/**
 * The shadow's rev as a CoAP entity tag: big-endian, in as few bytes as hold it (rev 0 is one zero byte, since an
 * ETag is never empty). Clients treat it as opaque and send it back in If-Match (docs/coap.md "Conditional writes").
 */
export function coapEtagOf(rev: number): Buffer {
  const bytes: number[] = [];
  for (let rest = rev; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from(bytes.length > 0 ? bytes : [0]);
}

/** The rev an If-Match value names, or undefined when it is none of our tags (it then never matches). */
function revOf(tag: Buffer): number | undefined {
  let rev = 0;
  for (const byte of tag) rev = rev * 256 + byte;
  return Number.isSafeInteger(rev) && coapEtagOf(rev).equals(tag) ? rev : undefined;
}

/**
 * The request's If-Match options (any of them matching: RFC 7252 §5.10.8.1; an empty one means "the shadow was
 * written") and If-None-Match (§5.10.8.2: "never written"); undefined without either.
 */
export function coapRevConditionOf(options: readonly RawOption[]): RevCondition | undefined {
  const matches = options.filter((o) => o.name === 'If-Match').map((o) => (Buffer.isBuffer(o.value) ? o.value : Buffer.alloc(0)));
  const noneMatch = options.some((o) => o.name === 'If-None-Match');
  if (matches.length === 0 && !noneMatch) return undefined;
  if (matches.some((m) => m.length > MAX_ETAG_BYTES)) {
    throw new AppError('INVALID_CONDITION', `If-Match: an entity tag is at most ${MAX_ETAG_BYTES} bytes`);
  }
  const match = matches.some((m) => m.length === 0)
    ? '*'
    : matches.flatMap((m) => {
        const rev = revOf(m);
        return rev === undefined ? [] : [rev];
      });
  return { ...(matches.length > 0 ? { match } : {}), ...(noneMatch ? { noneMatch: '*' as const } : {}) };
}
