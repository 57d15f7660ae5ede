import * as t from 'io-ts';
import { isIP } from 'node:net';
import { allowEntryProblem } from '../triggers/address-guard';

/**
 * Codecs from an environment string to a typed value. Each failure is one line naming what is expected, which
 * loadConfig prints after the variable's name (`PORT: must be a port number 0-65535 (got "eighty")`).
 */

export const Port = new t.Type<number, string, unknown>(
  'Port',
  (u): u is number => typeof u === 'number',
  (u, c) => {
    if (typeof u !== 'string' || !/^\d{1,5}$/.test(u)) return t.failure(u, c, 'must be a port number 0-65535');
    const n = Number(u);
    return n <= 65535 ? t.success(n) : t.failure(u, c, 'must be a port number 0-65535');
  },
  String,
);

export const PositiveInt = new t.Type<number, string, unknown>(
  'PositiveInt',
  (u): u is number => typeof u === 'number',
  (u, c) =>
    typeof u === 'string' && /^[1-9]\d{0,9}$/.test(u) ? t.success(Number(u)) : t.failure(u, c, 'must be a positive integer'),
  String,
);

/** A whole number from `min` up to 10 digits (the budgets of issue 10). */
const wholeNumber = (min: number) =>
  new t.Type<number, string, unknown>(
    `WholeNumber>=${min}`,
    (u): u is number => typeof u === 'number',
    (u, c) =>
      typeof u === 'string' && /^\d{1,10}$/.test(u) && Number(u) >= min
        ? t.success(Number(u))
        : t.failure(u, c, `must be a whole number, at least ${min}`),
    String,
  );

export const AtLeastOne = wholeNumber(1);
export const AtLeastZero = wholeNumber(0);

/** A rate: a non-negative decimal such as `20` or `0.5`. */
export const Rate = new t.Type<number, string, unknown>(
  'Rate',
  (u): u is number => typeof u === 'number',
  (u, c) =>
    typeof u === 'string' && /^\d{1,9}(\.\d{1,6})?$/.test(u) ? t.success(Number(u)) : t.failure(u, c, 'must be a number >= 0'),
  String,
);

export const NonEmpty = new t.Type<string, string, unknown>(
  'NonEmptyString',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' && u.trim() !== '' ? t.success(u) : t.failure(u, c, 'must not be empty')),
  String,
);

const Secret = new t.Type<string, string, unknown>(
  'AdminToken',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && u.length >= 16 ? t.success(u) : t.failure(u, c, 'must be at least 16 characters'),
  String,
);

/** ADMIN_TOKEN, METRICS_TOKEN: unset, or at least 16 characters. */
export const OptionalSecret = t.union([Secret, t.undefined]);

/** `true` or `false`, nothing else: a typo such as `DEMO=ture` must not silently mean off. */
export const Flag = new t.Type<boolean, string, unknown>(
  'Boolean',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => (u === 'true' || u === 'false' ? t.success(u === 'true') : t.failure(u, c, 'must be true or false')),
  String,
);

/** Unset, or set to a value of `codec`: a bad value gets the codec's one line, not a second "expected undefined". */
export const optional = <A>(codec: t.Type<A, string, unknown>) =>
  new t.Type<A | undefined, string | undefined, unknown>(
    codec.name,
    (u): u is A | undefined => u === undefined || codec.is(u),
    (u, c) => (u === undefined ? t.success(undefined) : codec.validate(u, c)),
    (a) => (a === undefined ? undefined : codec.encode(a)),
  );

/** An absolute http(s) URL, e.g. `http://127.0.0.1:8080`. */
export const HttpUrl = new t.Type<string, string, unknown>(
  'HttpUrl',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    if (typeof u !== 'string' || !URL.canParse(u)) return t.failure(u, c, 'must be an http:// or https:// URL');
    return ['http:', 'https:'].includes(new URL(u).protocol) ? t.success(u) : t.failure(u, c, 'must be an http:// or https:// URL');
  },
  String,
);

/** Comma-separated host names, IP addresses and CIDR ranges; empty allows nothing extra. */
export const AllowList = new t.Type<readonly string[], string, unknown>(
  'AllowList',
  (u): u is readonly string[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a list of host names, IP addresses or CIDR ranges');
    const entries = u.split(',').map((e) => e.trim()).filter((e) => e !== '');
    const problem = entries.map(allowEntryProblem).find((p) => p !== undefined);
    return problem ? t.failure(u, c, problem) : t.success(entries);
  },
  (a) => a.join(','),
);

/** Comma-separated origins (`scheme://host[:port]`, as a browser sends them), or `*` for any; empty allows none. */
export const OriginList = new t.Type<readonly string[], string, unknown>(
  'OriginList',
  (u): u is readonly string[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a comma-separated list of origins such as http://localhost:3000, or *');
    const entries = u.split(',').map((e) => e.trim()).filter((e) => e !== '');
    const bad = entries.find((e) => e !== '*' && !(URL.canParse(e) && new URL(e).origin === e));
    return bad === undefined
      ? t.success(entries)
      : t.failure(u, c, `"${bad}" is not an origin: expected scheme://host[:port] without a path or trailing slash, or *`);
  },
  (a) => a.join(','),
);

/** Webhook attempts per delivery: 1 (no retry) to 10. */
export const Attempts = new t.Type<number, string, unknown>(
  'Attempts',
  (u): u is number => typeof u === 'number',
  (u, c) => (typeof u === 'string' && /^([1-9]|10)$/.test(u) ? t.success(Number(u)) : t.failure(u, c, 'must be a whole number from 1 to 10')),
  String,
);

export const LogLevel = t.keyof({ fatal: null, error: null, warn: null, info: null, debug: null, trace: null, silent: null });

/** Where points are kept and queries run: the embedded engine (SQLite in DATA_DIR) or a KairosDB server. */
export const TimeSeriesKind = t.keyof({ embedded: null, kairosdb: null });

/** Comma-separated IP addresses and CIDR ranges (`10.0.0.0/8,192.0.2.7`), no host names; empty: none. */
export const AddressList = new t.Type<readonly string[], string, unknown>(
  'AddressList',
  (u): u is readonly string[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a list of IP addresses or CIDR ranges');
    const entries = u.split(',').map((e) => e.trim()).filter((e) => e !== '');
    const bad = entries.find((e) => !isAddressOrRange(e));
    return bad === undefined ? t.success(entries) : t.failure(u, c, `"${bad}" is not an IP address or a CIDR range`);
  },
  (a) => a.join(','),
);

function isAddressOrRange(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
}
