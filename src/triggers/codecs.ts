import * as t from 'io-ts';
import { closed, stringMatching } from '../core/codecs';
import { expressionProblem } from '../expressions/compile';
import { parseTemplate, templateProblem } from '../expressions/template';
import { isJsonObject, JsonObject, setMember } from '../core/json';
import { deviceTopic, topicProblem } from '../messaging/topics';
import { JsonValue, withProblem } from '../schema/codecs';
import { contentTypeOf, hookBody } from './hook-body';

/** Trigger and hook limits, named in the docs/limits-and-errors.md ("Limits"). */
export const TRIGGER_LIMITS = {
  /** Triggers of one device. */
  maxTriggers: 32,
  /** Event hooks one trigger runs. */
  maxActions: 8,
  /** Context variables of one trigger. */
  maxContext: 32,
  /** Headers of one webhook. */
  maxHeaders: 32,
} as const;

/**
 * The events of netpie reference §8.2, and DEVICE.PUSH, a device's `@push` or `PUT /push` (issue 18 §4);
 * `DEVICE.STATECHANGED`, the usage page's spelling, is read as STATUSCHANGED.
 */
export const EVENTS = ['SHADOW.UPDATED', 'DEVICE.STATUSCHANGED', 'DEVICE.PUSH'] as const;
export type EventName = (typeof EVENTS)[number];

export const EventName = new t.Type<EventName, EventName, unknown>(
  'event',
  (u): u is EventName => (EVENTS as readonly unknown[]).includes(u),
  (u, c) => {
    if (u === 'DEVICE.STATECHANGED') return t.success('DEVICE.STATUSCHANGED');
    return (EVENTS as readonly unknown[]).includes(u) ? t.success(u as EventName) : t.failure(u, c, `expected ${EVENTS.join(' or ')}`);
  },
  t.identity,
);

/**
 * What conditions and context templates may read (netpie reference §8.1): the shadow sides of a shadow event
 * (`$NEW` what was written, `$PREV` before, `$CUR` after), the status sides of a status event (`$NEW.STATUS`,
 * `$OLD.STATUS`, …; `$PREV` is `$OLD`, `$CUR` is `$NEW`), the push of a push event (`$NEW.title`, `$NEW.subtitle`,
 * `$NEW.body`; `$PREV` empty), and the system values. Absent values read as null.
 */
export const TRIGGER_VARIABLES: ReadonlySet<string> = new Set([
  '$NEW', '$PREV', '$CUR', '$OLD',
  '$DEVICEID', '$ALIAS', '$PROJECTID', '$PROJECTNAME', '$GROUPID', '$GROUPNAME', '$BILLINGID',
  '$EVENT', '$TRIGGERID', '$TIMESTAMP',
]);

/** Hook templates also read the trigger's `context`, and the older `msg` and `option` (netpie reference §8.3). */
export const HOOK_VARIABLES: ReadonlySet<string> = new Set([...TRIGGER_VARIABLES, 'context', 'msg', 'option']);

const Name = (what: string) => stringMatching(what, /^[A-Za-z0-9_.-]{1,64}$/, 'expected 1-64 characters of A-Z a-z 0-9 _ . -');
export const TriggerId = Name('trigger id');
export const HookName = Name('hook name');

const Condition = withProblem(t.string, 'condition', (s) => (s.trim() === '' ? 'expected an expression' : expressionProblem(s, TRIGGER_VARIABLES)));
const templateOf = (variables: ReadonlySet<string>) => withProblem(t.string, 'template', (s) => templateProblem(s, variables));
const TriggerTemplate = templateOf(TRIGGER_VARIABLES);
export const HookTemplate = templateOf(HOOK_VARIABLES);

/** A map with checked names, built without touching prototypes (names such as `__proto__` stay data). */
function namedMap<C extends t.Mixed>(what: string, names: RegExp, max: number, codec: C) {
  type A = Record<string, t.TypeOf<C>>;
  return new t.Type<A, A, unknown>(
    what,
    (u): u is A => isJsonObject(u),
    (u, c) => {
      if (!isJsonObject(u)) return t.failure(u, c, 'expected an object');
      const entries = Object.entries(u);
      if (entries.length > max) return t.failure(u, c, `more than ${max} members`);
      const errors: t.Errors = [];
      const out: A = {};
      for (const [name, value] of entries) {
        const at = t.appendContext(c, name, codec, value);
        if (!names.test(name)) {
          errors.push({ value: name, context: at, message: `"${name}" is not a valid name` });
          continue;
        }
        const r = codec.validate(value, at);
        if (r._tag === 'Left') errors.push(...r.left);
        else setMember(out as JsonObject, name, r.right);
      }
      return errors.length > 0 ? t.failures(errors) : t.success(out);
    },
    t.identity,
  );
}

/** One codec, or the other, with one message for both: unions would list each alternative's complaint. */
const either = <A, B>(name: string, why: string, a: t.Type<A, A, unknown>, b: t.Type<B, B, unknown>) =>
  new t.Type<A | B, A | B, unknown>(
    name,
    (u): u is A | B => a.is(u) || b.is(u),
    (u, c) => {
      const first = a.validate(u, c);
      if (first._tag === 'Right') return first;
      const second = b.validate(u, c);
      return second._tag === 'Right' ? second : t.failure(u, c, why);
    },
    t.identity,
  );

const Actions = either(
  'action',
  `expected a hook name or a list of 1 to ${TRIGGER_LIMITS.maxActions} hook names (1-64 characters of A-Z a-z 0-9 _ . -)`,
  HookName,
  withProblem(t.array(HookName), 'hook names', (a) => (a.length === 0 || a.length > TRIGGER_LIMITS.maxActions ? 'wrong length' : undefined)),
);

/** A context value: a template (a string, `{{ }}` allowed) or a constant number, boolean or null. */
const ContextValue = new t.Type<string | number | boolean | null, string | number | boolean | null, unknown>(
  'context value',
  (u): u is string | number | boolean | null => u === null || ['string', 'number', 'boolean'].includes(typeof u),
  (u, c) => {
    if (typeof u === 'string') return TriggerTemplate.validate(u, c);
    if (u === null || typeof u === 'boolean' || (typeof u === 'number' && Number.isFinite(u))) return t.success(u);
    return t.failure(u, c, 'expected a template string, a number, a boolean or null');
  },
  t.identity,
);

const JsonObjectValue = withProblem(JsonValue, 'object', (v) => (isJsonObject(v) ? undefined : 'expected an object'));

/**
 * One trigger (netpie reference §8.1-8.2): on `event`, when `condition` (absent: always) is true, run the event hooks
 * named in `action`, with `context` (constants or `{{ }}` templates), and the older `msg` and `option`.
 */
export const Trigger = closed(
  { event: EventName, action: Actions },
  {
    id: TriggerId,
    title: withProblem(t.string, 'title', (s) => (s.length > 200 ? 'at most 200 characters' : undefined)),
    enabled: t.boolean,
    condition: Condition,
    context: namedMap('context', /^[A-Za-z0-9_]{1,64}$/, TRIGGER_LIMITS.maxContext, ContextValue),
    msg: TriggerTemplate,
    option: JsonObjectValue,
  },
);
export type Trigger = t.TypeOf<typeof Trigger>;

/** A device's triggers (the GraphQL `updateTrigger` value of netpie reference §8.2): all of them at once. */
export const TriggerList = withProblem(
  closed({ trigger: withProblem(t.array(Trigger), 'triggers', (a) => (a.length > TRIGGER_LIMITS.maxTriggers ? `at most ${TRIGGER_LIMITS.maxTriggers} triggers` : undefined)) }, { enabled: t.boolean }),
  'trigger list',
  (list) => {
    const ids = list.trigger.flatMap((tr) => (tr.id === undefined ? [] : [tr.id]));
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    return twice === undefined ? undefined : `trigger id "${twice}" is used twice`;
  },
);
export type TriggerList = t.TypeOf<typeof TriggerList>;

/** Headers the service sets itself, or that would let a template reshape the request. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive', 'expect']);

const Headers = withProblem(
  namedMap('header', /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/, TRIGGER_LIMITS.maxHeaders, HookTemplate),
  'headers',
  (h) => {
    const reserved = Object.keys(h).find((n) => RESERVED_HEADERS.has(n.toLowerCase()) || n.toLowerCase().startsWith('proxy-'));
    return reserved === undefined ? undefined : `header "${reserved}" is set by the service`;
  },
);

/** `http(s)://host[:port]` written out: templates may fill the path and query, never the scheme or the host. */
const LITERAL_ORIGIN = /^https?:\/\/[^/?#{}\s@]+(?=[/?#]|$)/i;

export const WebhookUri = withProblem(HookTemplate, 'uri', (s) => {
  if (!LITERAL_ORIGIN.test(s)) return 'expected http:// or https:// and a host written out (templates may fill the path and query only)';
  try {
    new URL(parseTemplate(s).holes.reduce((text, hole) => text.replace(`{{${hole.source}}}`, 'x'), s));
    return undefined;
  } catch {
    return 'not a valid URL';
  }
});

/**
 * A body or payload that filled values cannot reshape (issue 20 §4, hook-body.ts): one that cannot be filled safely
 * is refused at its member (`config.body`, `config.payload`).
 */
function withSafeBody<A>(codec: t.Type<A, A, unknown>, member: 'body' | 'payload', read: (a: A) => { source?: string; contentType?: string }) {
  return new t.Type<A, A, unknown>(
    codec.name,
    codec.is,
    (u, c) => {
      const r = codec.validate(u, c);
      if (r._tag === 'Left') return r;
      const { source, contentType } = read(r.right);
      if (source === undefined) return r;
      const body = hookBody(source, contentType);
      if (!('problem' in body)) return r;
      const hint = member === 'body' && contentType === undefined ? '; to send it as text, set a Content-Type header such as text/plain' : '';
      return t.failure(source, t.appendContext(c, member, HookTemplate, source), `${body.problem}${hint}`);
    },
    t.identity,
  );
}

const WebhookShape = closed(
  { method: t.keyof({ GET: null, POST: null, PUT: null, PATCH: null, DELETE: null }), uri: WebhookUri },
  { header: Headers, body: HookTemplate },
);

/** A webhook (netpie reference §8.3): `{"method","uri","header","body"}` with `{{ }}` templates. */
export const WebhookConfig = withSafeBody(
  WebhookShape,
  'body',
  (config) => ({ source: config.body, contentType: contentTypeOf(config.header) }),
);
export type WebhookConfig = t.TypeOf<typeof WebhookConfig>;

/** `@msg/{topic}` in the triggering device's group, or `@private/{topic}` to the device itself; no wildcards. */
const MessageTopic = withProblem(t.string, 'topic', (s) => {
  const parsed = deviceTopic(s);
  if (!parsed) return 'expected @msg/{topic} (the device\'s group) or @private/{topic} (the device itself)';
  return topicProblem(parsed.rest, false, parsed.family);
});

/**
 * Publishes a message (issue 5 §4): `payload` is a template; `qos` (0 or 1, default 1) and `retain` (default false)
 * as a REST publish's query parameters (messaging/publish-options.ts).
 */
const MessageShape = closed({ topic: MessageTopic }, { payload: HookTemplate, qos: t.union([t.literal(0), t.literal(1)]), retain: t.boolean });

export const MessageConfig = withSafeBody(
  MessageShape,
  'payload',
  (config) => ({ source: config.payload }),
);
export type MessageConfig = t.TypeOf<typeof MessageConfig>;

const HookShape = closed({ type: t.keyof({ WEBHOOK: null, MESSAGE: null }), config: t.unknown }, { enabled: t.boolean, description: t.string });

export type EventHook =
  | { type: 'WEBHOOK'; config: WebhookConfig; enabled?: boolean; description?: string }
  | { type: 'MESSAGE'; config: MessageConfig; enabled?: boolean; description?: string };

/** A hook of either type, its config decoded by the codec of its type. */
const hookOf = (name: string, webhook: t.Decoder<unknown, WebhookConfig>, message: t.Decoder<unknown, MessageConfig>) =>
  new t.Type<EventHook, EventHook, unknown>(
    name,
    (u): u is EventHook => isJsonObject(u),
    (u, c) => {
      const shape = HookShape.validate(u, c);
      if (shape._tag === 'Left') return shape;
      const codec: t.Decoder<unknown, WebhookConfig | MessageConfig> = shape.right.type === 'WEBHOOK' ? webhook : message;
      const config = codec.validate(shape.right.config, t.appendContext(c, 'config', codec as t.Mixed, shape.right.config));
      if (config._tag === 'Left') return config;
      return t.success({ ...shape.right, config: config.right } as EventHook);
    },
    t.identity,
  );

/** An event hook of a project, as saved: a WEBHOOK, or a MESSAGE published to a topic of the triggering device. */
export const EventHook = hookOf('event hook', WebhookConfig, MessageConfig);

/**
 * A hook as read back from a store: the shapes without the body rule, so a hook saved before the rule (issue 20 §4)
 * still reads; its delivery refuses a body it cannot fill safely (hook-body.ts) and logs why.
 */
export const StoredEventHook = hookOf('stored event hook', WebhookShape, MessageShape);

/** `?deviceid=&limit=` of the delivery log. */
export const DeliveryQuery = closed(
  {},
  {
    deviceid: t.string,
    limit: new t.Type<number, string, unknown>(
      'limit',
      (u): u is number => typeof u === 'number',
      (u, c) => (typeof u === 'string' && /^\d{1,4}$/.test(u) && Number(u) >= 1 && Number(u) <= 1000 ? t.success(Number(u)) : t.failure(u, c, 'expected 1 to 1000')),
      String,
    ),
  },
);

/** An entry of the delivery log as stored, without its id (decoded when read back, like every stored row). */
export const StoredDelivery = t.intersection([
  t.type({
    at: t.number,
    projectid: t.string,
    deviceid: t.string,
    triggerid: t.string,
    event: EventName,
    outcome: t.keyof({ delivered: null, failed: null, refused: null, skipped: null, quota_exceeded: null, condition_error: null }),
  }),
  t.partial({ hook: t.string, target: t.string, attempts: t.number, status: t.number, error: t.string, durationMs: t.number }),
]);
