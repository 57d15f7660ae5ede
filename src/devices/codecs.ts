import * as t from 'io-ts';
import { closed, intBetween, intStringBetween, ScopeId, stringMatching, wellFormed } from '../core/codecs';

const AliasText = wellFormed(stringMatching('alias', /^(?=.*\S)[^\u0000-\u001f\u007f]{1,128}$/u,
  'expected 1-128 characters, not blank, without control characters'));

/**
 * Characters that make an alias read as another in the console and the CLI (issue 20 §6): bidi embeddings and
 * overrides (U+202A-U+202E) and isolates (U+2066-U+2069) reorder what follows them (Unicode TR9; the "Trojan Source"
 * trick), and zero-width characters (U+200B-U+200D, U+2060, U+FEFF) make two aliases that look the same differ.
 */
const DECEPTIVE = [
  { re: /[\u202a-\u202e\u2066-\u2069]/u, what: 'bidirectional override or isolate characters (U+202A-U+202E, U+2066-U+2069)' },
  { re: /[\u200b-\u200d\u2060\ufeff]/u, what: 'zero-width characters (U+200B-U+200D, U+2060, U+FEFF)' },
];

/**
 * 1-128 characters without control characters, bidi controls or zero-width characters; unique within a group. Kept
 * in Unicode NFC, so that an alias typed with a precomposed `é` and one with `e` + U+0301 are the same alias.
 */
export const Alias = new t.Type<string, string, unknown>(
  'alias',
  (u): u is string => AliasText.is(u) && u === u.normalize('NFC') && !DECEPTIVE.some(({ re }) => re.test(u)),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected string');
    const deceptive = DECEPTIVE.find(({ re }) => re.test(u));
    if (deceptive) return t.failure(u, c, `an alias may not hold ${deceptive.what}`);
    // Lone surrogates first: normalize() would keep them, and the refusal names them.
    return u.isWellFormed() ? AliasText.validate(u.normalize('NFC'), c) : AliasText.validate(u, c);
  },
  t.identity,
);

export const Description = wellFormed(stringMatching('description', /^[^\u0000-\u0008\u000b-\u001f\u007f]{0,1024}$/u,
  'expected at most 1024 characters without control characters'));

/** Seconds, at most 7 days; 0 turns liveness off. */
export const LivenessTtl = intBetween(0, 604_800);

/**
 * A device id given by the caller (a ClientID brought from NETPIE): a UUID in lowercase, the form of NETPIE's
 * ClientIDs and of the ids the service makes. So it stays a valid MQTT ClientID (MQTT 5 refuses ClientIDs of another
 * form, mqtt/v5/refusals.ts), a URL path segment and a metric name, and never names an Object.prototype member.
 */
export const DeviceId = stringMatching('device id', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  'expected a UUID in lowercase, e.g. 777d5c96-4c83-4aa6-a273-5ee7c5f453b1');

const KEY_CHARACTERS = /^[A-Za-z0-9._~-]{16,128}$/;
/** Fewer different characters than this is a pattern (`aaaa…`, `abab…`), not a key. */
const KEY_MIN_DISTINCT = 8;
export const KEY_RULE = '16-128 characters of A-Z a-z 0-9 . _ ~ - with at least 8 different ones';

/**
 * A token or secret given by the caller. NETPIE's are 32 letters and digits; any URL-unreserved characters (RFC 3986
 * §2.3) are taken, so a key needs no escaping in `Authorization: Device <id>:<token>`, CoAP's `?auth=` or a topic.
 * A failure never shows the key (errors reach the caller and could reach a log): only its length.
 */
export const DeviceKey = new t.Type<string, string, unknown>(
  'key',
  (u): u is string => typeof u === 'string' && isStrongKey(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected a string');
    return isStrongKey(u) ? t.success(u) : t.failure(`<${u.length} characters>`, c, `expected ${KEY_RULE}`);
  },
  t.identity,
);

function isStrongKey(key: string): boolean {
  return KEY_CHARACTERS.test(key) && new Set(key).size >= KEY_MIN_DISTINCT;
}

/** `deviceid`, `token` and `secret` are made by the service unless given (moving a fleet from NETPIE, issue 18 §3). */
export const CreateDeviceRequest = closed(
  { projectid: ScopeId, groupid: ScopeId, alias: Alias },
  { description: Description, enabled: t.boolean, livenessttl: LivenessTtl, deviceid: DeviceId, token: DeviceKey, secret: DeviceKey },
);
export type CreateDeviceRequest = t.TypeOf<typeof CreateDeviceRequest>;

export const UpdateDeviceRequest = closed(
  {},
  { alias: Alias, groupid: ScopeId, enabled: t.boolean, banned: t.boolean, description: Description, livenessttl: LivenessTtl },
);
export type UpdateDeviceRequest = t.TypeOf<typeof UpdateDeviceRequest>;

/**
 * `GET /v2/admin/devices`: a project and group; `q`, part of an alias (any case) or the start of a device id; a page
 * of `limit` devices (1-1000; all when absent) from `offset`.
 */
export const DeviceListQuery = closed({}, {
  projectid: ScopeId,
  groupid: ScopeId,
  q: stringMatching('search', /^.{1,128}$/su, 'expected 1-128 characters'),
  limit: intStringBetween(1, 1000),
  offset: intStringBetween(0, 1_000_000_000),
});
export type DeviceListQuery = t.TypeOf<typeof DeviceListQuery>;
