import * as t from 'io-ts';
import { AppError } from '../core/errors';
import { decodeOrThrow } from '../core/decode-errors';
import { MESSAGE_PROPERTY_LIMITS } from './limits';
import { MessageProperties } from './properties';
import { deviceTopic, topicProblem } from './topics';

/**
 * The MQTT 5 properties a REST (or CoAP) publisher gives a message, in their text form: the request headers of
 * docs/mqtt.md "MQTT 5 properties of REST messages", keyed by header name so that an error names the header that
 * was wrong. Values are decoded once here; subscribers of any protocol version get the message, MQTT 5 ones with its
 * properties.
 */
export interface MessageOptionsText {
  'content-type'?: string;
  /** `name=value`, each part percent-encoded where needed (`%3D` for `=`); repeated headers keep their order. */
  'x-mqtt-user-property'?: string[];
  /** Seconds, 1 to 4294967295. */
  'x-mqtt-message-expiry'?: string;
  /** A topic as devices write it: `@msg/...` or `@private/...`, no wildcards. */
  'x-mqtt-response-topic'?: string;
  /** Base64. */
  'x-mqtt-correlation-data'?: string;
  /** `utf-8` (the payload is UTF-8 text, checked) or `unspecified`. */
  'x-mqtt-payload-format'?: string;
}

const L = MESSAGE_PROPERTY_LIMITS;

/** A codec from text to `A`: `parse` returns `{ value }`, or `{ why }` saying what is wrong. */
function fromText<A>(
  name: string,
  parse: (s: string) => { value: A } | { why: string },
  isA: (u: unknown) => u is A,
): t.Type<A, string, unknown> {
  return new t.Type<A, string, unknown>(
    name,
    isA,
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c, 'expected text');
      const parsed = parse(u);
      return 'why' in parsed ? t.failure(u, c, parsed.why) : t.success(parsed.value);
    },
    String,
  );
}

const isString = (u: unknown): u is string => typeof u === 'string';

const ContentType = new t.Type<string, string, unknown>(
  'content type',
  isString,
  (u, c) =>
    typeof u === 'string' && u !== '' && Buffer.byteLength(u) <= L.maxContentTypeBytes
      ? t.success(u)
      : t.failure(u, c, `expected a media type of 1 to ${L.maxContentTypeBytes} bytes`),
  String,
);

type Pair = [string, string];
const isPair = (u: unknown): u is Pair => Array.isArray(u) && u.length === 2;
const UserProperty = fromText<Pair>(
  'user property',
  (s) => {
    const at = s.indexOf('=');
    if (at <= 0) return { why: 'expected name=value with a name of at least one character' };
    try {
      return { value: [decodeURIComponent(s.slice(0, at).trim()), decodeURIComponent(s.slice(at + 1).trim())] };
    } catch {
      return { why: 'expected valid percent-encoding (UTF-8)' };
    }
  },
  isPair,
);

const isSeconds = (u: unknown): u is number => typeof u === 'number';
const ExpirySeconds = fromText<number>(
  'seconds',
  (s) => {
    const n = /^\d{1,10}$/.test(s.trim()) ? Number(s.trim()) : NaN;
    return n >= 1 && n <= L.maxExpirySeconds ? { value: n } : { why: `expected whole seconds from 1 to ${L.maxExpirySeconds}` };
  },
  isSeconds,
);

/** The response topic in the form devices use; subscribers publish their answer to it as it is. */
const ResponseTopic = new t.Type<string, string, unknown>(
  'response topic',
  isString,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected text');
    const parsed = deviceTopic(u);
    const why = parsed ? topicProblem(parsed.rest, false, parsed.family) : 'expected a topic starting with @msg/ or @private/';
    return why ? t.failure(u, c, why) : t.success(u);
  },
  String,
);

const isBuffer = (u: unknown): u is Buffer => Buffer.isBuffer(u);
const CorrelationData = fromText<Buffer>(
  'base64',
  (s) => {
    const bytes = /^[A-Za-z0-9+/_-]*={0,2}$/.test(s.trim()) ? Buffer.from(s.trim(), 'base64') : undefined;
    if (!bytes || bytes.length === 0) return { why: 'expected base64 of at least one byte' };
    return bytes.length <= L.maxCorrelationBytes ? { value: bytes } : { why: `expected at most ${L.maxCorrelationBytes} bytes once decoded` };
  },
  isBuffer,
);

const isBoolean = (u: unknown): u is boolean => typeof u === 'boolean';
const PayloadFormat = fromText<boolean>(
  'payload format',
  (s) => {
    const v = s.trim().toLowerCase();
    return v === 'utf-8' || v === 'unspecified' ? { value: v === 'utf-8' } : { why: 'expected utf-8 or unspecified' };
  },
  isBoolean,
);

const MessageOptions = t.partial({
  'content-type': ContentType,
  'x-mqtt-user-property': t.array(UserProperty),
  'x-mqtt-message-expiry': ExpirySeconds,
  'x-mqtt-response-topic': ResponseTopic,
  'x-mqtt-correlation-data': CorrelationData,
  'x-mqtt-payload-format': PayloadFormat,
});

/**
 * The properties `text` gives a message with `payload`, or undefined when it gives none; throws 400
 * INVALID_MESSAGE_PROPERTY naming the header that is wrong.
 */
export function messagePropertiesFromText(text: MessageOptionsText, payload: Buffer): MessageProperties | undefined {
  const options = decodeOrThrow(MessageOptions, text, 'INVALID_MESSAGE_PROPERTY');
  const properties: MessageProperties = {};
  const contentType = options['content-type'];
  if (contentType !== undefined && !isClientDefault(contentType)) properties.contentType = contentType;
  if (options['x-mqtt-message-expiry'] !== undefined) properties.messageExpiryInterval = options['x-mqtt-message-expiry'];
  if (options['x-mqtt-response-topic'] !== undefined) properties.responseTopic = options['x-mqtt-response-topic'];
  if (options['x-mqtt-correlation-data'] !== undefined) properties.correlationData = options['x-mqtt-correlation-data'];
  const utf8 = options['x-mqtt-payload-format'];
  if (utf8 !== undefined) {
    // A receiver may check that a payload marked UTF-8 is UTF-8 [MQTT-3.3.2-4]; the publisher learns it here, not later.
    if (utf8 && !isUtf8(payload)) throw invalid('x-mqtt-payload-format: utf-8, but the body is not valid UTF-8');
    properties.payloadFormatIndicator = utf8;
  }
  const pairs = options['x-mqtt-user-property'];
  if (pairs && pairs.length > 0) properties.userProperties = userPropertiesOf(pairs);
  return Object.keys(properties).length > 0 ? properties : undefined;
}

function userPropertiesOf(pairs: Pair[]): Record<string, string | string[]> {
  if (pairs.length > L.maxUserProperties) throw invalid(`x-mqtt-user-property: at most ${L.maxUserProperties} of them`);
  const bytes = pairs.reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value), 0);
  if (bytes > L.maxUserPropertyBytes) throw invalid(`x-mqtt-user-property: at most ${L.maxUserPropertyBytes} bytes of names and values`);
  // A name-keyed object, as mqtt-packet carries user properties; a Map first, so a name such as `__proto__` stays a
  // plain key of the result (Object.fromEntries defines own properties).
  const byName = new Map<string, string[]>();
  for (const [name, value] of pairs) byName.set(name, [...(byName.get(name) ?? []), value]);
  return Object.fromEntries([...byName].map(([name, values]) => [name, values.length === 1 ? values[0] : values]));
}

/**
 * `application/x-www-form-urlencoded` is what curl -d and axios send when told nothing, with the raw message as the
 * body (docs/device-api.md "Message bodies"): it says nothing of the message, so subscribers are not told it either.
 */
const isClientDefault = (contentType: string) => contentType.split(';')[0].trim().toLowerCase() === 'application/x-www-form-urlencoded';

const invalid = (message: string) => new AppError('INVALID_MESSAGE_PROPERTY', message);

function isUtf8(payload: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(payload);
    return true;
  } catch {
    return false;
  }
}
