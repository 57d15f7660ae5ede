import { EXPRESSION_LIMITS } from '../../expressions/limits';
import { QUOTA_NAMES } from '../../quotas/quota';
import { SCHEMA_LIMITS } from '../../schema/codecs';
import { MAX_WARNINGS } from '../../schema/warnings';
import { TRIGGER_LIMITS } from '../../triggers/codecs';
import { Duration } from './retention-paths';
import { Schema, schemaRef } from './types';

/** The same rules as src/schema/codecs.ts, src/quotas/codecs.ts and src/triggers/codecs.ts. */
const Expression: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: EXPRESSION_LIMITS.maxLength,
  description: 'An expression of the language of the docs/automation.md ("Expressions"); checked when saved.',
};
const Name: Schema = { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' };
const Template: Schema = { type: 'string', description: 'Text with `{{ expression }}` holes.' };
const Millis: Schema = { type: 'integer', description: 'Epoch milliseconds.' };

const Webhook: Schema = {
  type: 'object',
  required: ['type', 'config'],
  additionalProperties: false,
  properties: {
    type: { const: 'WEBHOOK' },
    enabled: { type: 'boolean', default: true },
    description: { type: 'string' },
    config: {
      type: 'object',
      required: ['method', 'uri'],
      additionalProperties: false,
      properties: {
        method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
        uri: { ...Template, pattern: '^https?://[^/?#{}\\s@]+([/?#].*)?$', description: 'http(s) URL; holes may fill the path and query (percent-encoded), not the host.' },
        header: { type: 'object', maxProperties: TRIGGER_LIMITS.maxHeaders, additionalProperties: Template },
        body: Template,
      },
    },
  },
};

const MessageHook: Schema = {
  type: 'object',
  required: ['type', 'config'],
  additionalProperties: false,
  properties: {
    type: { const: 'MESSAGE' },
    enabled: { type: 'boolean', default: true },
    description: { type: 'string' },
    config: {
      type: 'object',
      required: ['topic'],
      additionalProperties: false,
      properties: {
        topic: { type: 'string', pattern: '^@(msg|private)/', description: '`@msg/…` in the device\'s group, or `@private/…` to the device.' },
        payload: { ...Template, description: 'Absent: the trigger\'s `msg`, else `{"deviceid","event","triggerid","data"}`.' },
      },
    },
  },
};

const Limit: Schema = { type: ['integer', 'null'], minimum: 0, description: 'Per calendar month (UTC); `null` or absent: unlimited.' };

const FieldSchema: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { enum: ['number', 'string', 'boolean', 'array', 'object'], description: 'Absent: any value, not converted.' },
    minimum: { type: 'number', description: 'With `type: number`: smaller values are dropped (with a warning).' },
    maximum: { type: 'number', description: 'With `type: number`: larger values are dropped (with a warning).' },
    autofill: { type: 'boolean', description: 'Compute the field on every write, mentioned or not (needs a transform).' },
    default: { description: 'What `$$.<field>` reads while the shadow has no value for the field.' },
    store: { type: 'boolean', description: '`false`: kept in the shadow, never recorded as time-series points.' },
    description: { type: 'string' },
    operation: {
      type: 'object',
      additionalProperties: false,
      properties: {
        transform: {
          type: 'object',
          required: ['expression'],
          additionalProperties: false,
          properties: {
            expression: { ...Expression, description: '`$.x` is the incoming value of x, `$$.x` the stored one.' },
            dp: { type: 'integer', minimum: 0, maximum: SCHEMA_LIMITS.maxDp, description: 'Decimal places to round a number to.' },
          },
        },
        store: {
          type: 'object',
          required: ['ttl'],
          additionalProperties: false,
          properties: { ttl: Duration },
          description: 'NETPIE\'s older storage model: in a schema where any field has one, exactly those fields are ' +
            'recorded, each point kept for its ttl (docs/automation.md "Schemas"). Not with `store: false`.',
        },
      },
    },
  },
};

const quotaCounters: Schema = {
  type: 'object',
  required: [...QUOTA_NAMES],
  additionalProperties: false,
  properties: Object.fromEntries(QUOTA_NAMES.map((q) => [q, {
    type: 'object',
    required: ['used', 'limit'],
    additionalProperties: false,
    properties: { used: { type: 'integer', minimum: 0 }, limit: { type: ['integer', 'null'], minimum: 0 } },
  }])),
};

/** components.schemas of schemas, triggers, hooks and quotas. */
export const AUTOMATION_SCHEMAS: Readonly<Record<string, Schema>> = {
  FieldWarning: {
    type: 'object',
    description: 'A field a write stored converted or did not store, because of the schema; or (`unrecorded`) one a datatag could not record.',
    required: ['field', 'action', 'reason', 'message'],
    additionalProperties: false,
    properties: {
      index: { type: 'integer', minimum: 0, description: 'Batches only: the item, by its index in `batch`.' },
      field: { type: 'string' },
      action: { enum: ['coerced', 'dropped', 'unrecorded'] },
      reason: { enum: ['type', 'range', 'additionalProperties', 'expression'] },
      message: { type: 'string' },
    },
  },
  FieldWarnings: {
    type: 'array',
    maxItems: MAX_WARNINGS,
    items: schemaRef('FieldWarning'),
    description: `Only when the schema converted or dropped something; at most ${MAX_WARNINGS} (then \`warningsOmitted\` counts the rest).`,
  },
  FieldSchema,
  ShadowSchema: {
    type: 'object',
    description: 'A device schema (netpie reference §7.1), also used as a group\'s default.',
    required: ['properties'],
    additionalProperties: false,
    properties: {
      additionalProperties: { type: 'boolean', default: true, description: '`false`: fields not listed are dropped, with a warning.' },
      description: { type: 'string' },
      properties: {
        type: 'object',
        maxProperties: SCHEMA_LIMITS.maxFields,
        propertyNames: { pattern: '^[A-Za-z0-9_]{1,128}$' },
        additionalProperties: schemaRef('FieldSchema'),
      },
    },
  },
  Trigger: {
    type: 'object',
    required: ['event', 'action'],
    additionalProperties: false,
    properties: {
      id: { ...Name, description: 'Absent: the trigger\'s position, from 1.' },
      title: { type: 'string', maxLength: 200 },
      enabled: { type: 'boolean', default: true },
      event: { enum: ['SHADOW.UPDATED', 'DEVICE.STATUSCHANGED', 'DEVICE.PUSH', 'DEVICE.STATECHANGED'], description: 'STATECHANGED is read as STATUSCHANGED.' },
      condition: { ...Expression, description: 'Over `$NEW`, `$PREV`, `$CUR`, `$OLD` and the system values; absent: always.' },
      action: {
        oneOf: [Name, { type: 'array', minItems: 1, maxItems: TRIGGER_LIMITS.maxActions, items: Name }],
        description: 'The event hook(s) to run, by name; they must exist in the device\'s project.',
      },
      context: {
        type: 'object',
        maxProperties: TRIGGER_LIMITS.maxContext,
        propertyNames: { pattern: '^[A-Za-z0-9_]{1,64}$' },
        additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
        description: 'Constants, or templates such as `{{ $NEW.temp }}`; hooks read them as `{{context.name}}`.',
      },
      msg: { ...Template, description: 'The older model\'s message; hooks read it as `{{msg}}`.' },
      option: { type: 'object', description: 'The older model\'s options; hooks read them as `{{option.name}}`.' },
    },
  },
  TriggerList: {
    type: 'object',
    required: ['trigger'],
    additionalProperties: false,
    properties: {
      enabled: { type: 'boolean', default: true, description: '`false` turns every trigger of the device off.' },
      trigger: { type: 'array', maxItems: TRIGGER_LIMITS.maxTriggers, items: schemaRef('Trigger') },
    },
  },
  EventHook: { oneOf: [Webhook, MessageHook] },
  NamedEventHook: {
    oneOf: [
      { ...Webhook, required: ['name', 'type', 'config'], properties: { name: Name, ...(Webhook.properties as object) } },
      { ...MessageHook, required: ['name', 'type', 'config'], properties: { name: Name, ...(MessageHook.properties as object) } },
    ],
  },
  HookList: {
    type: 'object',
    required: ['hooks'],
    additionalProperties: false,
    properties: { hooks: { type: 'array', items: schemaRef('NamedEventHook') } },
  },
  Delivery: {
    type: 'object',
    required: ['id', 'at', 'projectid', 'deviceid', 'triggerid', 'event', 'outcome'],
    additionalProperties: false,
    properties: {
      id: { type: 'integer' },
      at: Millis,
      projectid: { type: 'string' },
      deviceid: { type: 'string' },
      triggerid: Name,
      event: { enum: ['SHADOW.UPDATED', 'DEVICE.STATUSCHANGED', 'DEVICE.PUSH'] },
      hook: Name,
      outcome: { enum: ['delivered', 'failed', 'refused', 'skipped', 'quota_exceeded', 'condition_error'] },
      target: { type: 'string', description: 'The hook\'s method and uri (or MESSAGE and topic) as written, holes unfilled.' },
      attempts: { type: 'integer', minimum: 0 },
      status: { type: 'integer', description: 'HTTP status of the webhook\'s last answer.' },
      error: { type: 'string' },
      durationMs: { type: 'number' },
    },
  },
  DeliveryList: {
    type: 'object',
    required: ['deliveries'],
    additionalProperties: false,
    properties: { deliveries: { type: 'array', items: schemaRef('Delivery') } },
  },
  QuotaReport: {
    type: 'object',
    required: ['projectid', 'month', 'resetsAt', 'quotas'],
    additionalProperties: false,
    properties: {
      projectid: { type: 'string' },
      month: { type: 'string', pattern: '^\\d{4}-\\d{2}$', description: 'The calendar month (UTC) counted.' },
      resetsAt: { type: 'string', format: 'date-time', description: 'The start of the next month: counters start again from 0.' },
      quotas: quotaCounters,
    },
  },
  QuotaLimitsRequest: {
    type: 'object',
    description: 'Every limit of the project; a quota left out is unlimited.',
    additionalProperties: false,
    properties: Object.fromEntries(QUOTA_NAMES.map((q) => [q, Limit])),
  },
};
