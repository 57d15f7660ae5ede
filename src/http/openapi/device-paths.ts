import { ErrorCode } from '../../core/errors';
import { DEVICE_API_ERRORS, errorResponses, JSON_BODY_ERRORS } from './error-responses';
import { DEVICE_SECURITY } from './security';
import { jsonBody, success } from './content';
import { AT_ERRORS, atParameter, revisionsOperation } from './history-paths';
import { CONDITION_ERRORS, conditionHeaders, NOT_MODIFIED, readConditionHeader, withEtag } from './shadow-conditions';
import { Operation, Parameter, Paths, RequestBody } from './types';

const DEVICE_ID = '5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10';

const aliasParameter: Parameter = {
  name: 'alias',
  in: 'query',
  required: false,
  description: 'Another device **of the caller\'s group**, by alias; absent: the caller itself.',
  schema: { type: 'string' },
};

const TOPIC_RULES = 'One or more `/`-separated levels: no `+` or `#`, no empty level, at most 512 bytes and 32 levels. ' +
  'The service adds the `@msg/` or `@private/` prefix itself; a topic written with it means the topic without it, and ' +
  'any other leading `@` is refused.';

/**
 * The route is `/message/*topic` (one or more levels). An OpenAPI path parameter is one segment, so it is
 * documented as `{topic}`: the explorer sends `home/lamp` as `home%2Flamp`, which the router decodes to the same
 * topic; other clients write the levels plainly (`/message/home/lamp`).
 */
const topicInPath: Parameter = {
  name: 'topic',
  in: 'path',
  required: true,
  description: `${TOPIC_RULES} Levels may be written plainly (\`/message/home/lamp\`) or as one encoded segment ` +
    '(`/message/home%2Flamp`, what this explorer sends).',
  schema: { type: 'string', minLength: 1 },
  example: 'home/lamp',
};

const topicInQuery: Parameter = {
  name: 'topic',
  in: 'query',
  required: true,
  description: `${TOPIC_RULES} Give it here or in the path, not both.`,
  schema: { type: 'string', minLength: 1 },
  example: 'home/lamp',
};

/** MQTT 5 properties of the message (docs/mqtt.md "MQTT 5 properties of REST messages"); MQTT 5 subscribers get them. */
const messagePropertyHeaders: Parameter[] = [
  {
    name: 'X-MQTT-User-Property',
    in: 'header',
    required: false,
    description: 'A user property, `name=value` (percent-encode `=`, `%` and non-ASCII characters). Repeat the header ' +
      'for several; their order is kept. At most 32, 8 KiB of names and values.',
    schema: { type: 'string' },
    example: 'unit=celsius',
  },
  {
    name: 'X-MQTT-Message-Expiry',
    in: 'header',
    required: false,
    description: 'Message Expiry Interval in seconds (1 to 4294967295): copies queued for offline subscribers are dropped after it.',
    schema: { type: 'string', pattern: '^[0-9]{1,10}$' },
    example: '60',
  },
  {
    name: 'X-MQTT-Response-Topic',
    in: 'header',
    required: false,
    description: 'Response Topic, as devices write topics (`@msg/...` or `@private/...`, no wildcards).',
    schema: { type: 'string' },
    example: '@msg/lamp/answers',
  },
  {
    name: 'X-MQTT-Correlation-Data',
    in: 'header',
    required: false,
    description: 'Correlation Data, base64 (at most 1 KiB once decoded).',
    schema: { type: 'string', format: 'byte' },
    example: 'cmVxLTQy',
  },
  {
    name: 'X-MQTT-Payload-Format',
    in: 'header',
    required: false,
    description: '`utf-8` (the body must then be valid UTF-8) or `unspecified`. `Content-Type`, when sent, becomes the Content Type property.',
    schema: { type: 'string', enum: ['utf-8', 'unspecified'] },
  },
];

const qosParameter: Parameter = {
  name: 'qos',
  in: 'query',
  required: false,
  description: '`1` (default): the 200 comes once the message is queued for every offline persistent session ' +
    '(clean session off) subscribed at QoS 1 or 2, and, in a cluster, on the backbone; it then reaches them when ' +
    'they return. `0`: at most once, delivered only to devices connected now (docs/device-api.md "QoS and retain").',
  schema: { type: 'integer', enum: [0, 1], default: 1 },
};

const retainParameter: Parameter = {
  name: 'retain',
  in: 'query',
  required: false,
  description: '`true`: also kept as the topic\'s retained message, sent to each later subscriber; an empty body ' +
    'clears it. A group keeps at most RETAINED_PER_GROUP_LIMIT retained topics (409 `RETAINED_LIMIT`).',
  schema: { type: 'boolean', default: false },
};

const messageBody: RequestBody = {
  description: 'Any bytes, passed on as they are (256 KiB at most), whatever the Content-Type: a form type (what ' +
    'curl -d and axios send) is the raw message, not decoded; only multipart bodies are refused with 415.',
  required: false,
  content: {
    'text/plain': { schema: { type: 'string' }, example: 'ON' },
    'application/x-www-form-urlencoded': { schema: { type: 'string' }, example: 'ON' },
    'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
  },
};

const SHADOW_TARGET_ERRORS: ErrorCode[] = ['INVALID_QUERY', 'OTHER_GROUP', 'ALIAS_NOT_FOUND'];
const SHADOW_WRITE_ERRORS: ErrorCode[] = [...JSON_BODY_ERRORS, ...SHADOW_TARGET_ERRORS, 'SHADOW_TOO_LARGE', ...CONDITION_ERRORS];
/**
 * BACKEND_UNAVAILABLE: with BACKBONE_URL, while the MQTT backbone is down (docs/production.md "Production backends: MQTT
 * backbone"), or while the session store does not answer.
 */
const PUBLISH_ERRORS: ErrorCode[] = [
  'INVALID_TOPIC', 'INVALID_MESSAGE_PROPERTY', 'INVALID_QUERY', 'INVALID_BODY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'REQUEST_TIMEOUT',
  'RETAINED_LIMIT', 'BACKEND_UNAVAILABLE',
];

const shadowWriteExample = { data: { temp: 33.7, config: { item1: 'a' } }, timestamp: 1700000000000, merged: true };
const shadowReplyExample = {
  status: 200, deviceid: DEVICE_ID, data: { temp: 33.7, config: { item1: 'a', mode: 'eco' } },
  rev: 4, modified: 1700000000200, timestamp: 1700000000000, applied: true,
};
const batchExample = {
  ackid: 1839, merged: true, batch: [{ data: { temp: 25.9 }, ts: -90000 }, { data: { temp: 26.8 }, ts: 0 }],
};
const batchReplyExample = {
  deviceid: DEVICE_ID, response: { ackid: 1839, total: 2, applied: 2, mints: 1700000000000, maxts: 1700000090000 },
};

/** The Device API (spec 4.1-4.6) under `prefix`; `/v2/device` and its alias `/device` get the same operations. */
export function devicePaths(prefix: string): Paths {
  const isAlias = prefix !== '/v2/device';
  const tags = [isAlias ? 'Device API (/device alias)' : 'Device API'];
  const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
    operationId: isAlias ? `${id}Alias` : id,
    tags,
    security: DEVICE_SECURITY,
    ...fields,
  });

  const publish = (kind: 'message' | 'private', topicParameter: Parameter): Operation => {
    const family = kind === 'message' ? '@msg' : '@private';
    return op(`publish${kind === 'message' ? 'Message' : 'Private'}${topicParameter.in === 'path' ? '' : 'ByQuery'}`, {
      summary: kind === 'message'
        ? 'Publish to the caller\'s group on @msg/{topic}'
        : 'Send a private message to the calling device on @private/{topic}',
      description: kind === 'message'
        ? 'Published on `@msg/{topic}` to subscribers **of the caller\'s group only** (spec 4.2).'
        : 'Delivered on `@private/{topic}` to **the device whose credentials are used**, and to no other (spec 4.3).',
      parameters: [topicParameter, qosParameter, retainParameter, ...messagePropertyHeaders],
      requestBody: messageBody,
      responses: {
        ...success(200, 'Published.', 'PublishReply', { status: 200, message: `published to ${family}/home/lamp` }),
        ...errorResponses(DEVICE_API_ERRORS, PUBLISH_ERRORS),
      },
    });
  };

  const shadowWrite = (merge: boolean): Operation => op(merge ? 'mergeShadow' : 'overwriteShadow', {
    summary: merge ? 'Merge-write the shadow' : 'Overwrite the shadow',
    description: (merge
      ? 'Deep merge for objects; arrays and scalars are replaced; `null` deletes a member.'
      : 'Replaces the whole document (members set to `null` are left out).') +
      ' `merged` in the body beats the method. A write older than the shadow\'s `timestamp` is not applied. ' +
      'Numbers and booleans of the write are recorded as time-series points unless `store` is `false`. A device ' +
      'schema converts, checks and computes fields; what it converted or dropped is listed in `warnings`. An applied ' +
      'write runs the device\'s SHADOW.UPDATED triggers unless `trigger` is `false`. If-Match / If-None-Match (or ' +
      '`rev` in the body) make the write conditional on the shadow\'s revision.',
    parameters: [aliasParameter, ...conditionHeaders],
    requestBody: { required: true, content: jsonBody('ShadowWriteRequest', shadowWriteExample) },
    responses: {
      ...withEtag(success(200, 'The whole resulting shadow.', 'ShadowWriteReply', shadowReplyExample)),
      ...errorResponses(DEVICE_API_ERRORS, SHADOW_WRITE_ERRORS, ['INVALID_TIMESTAMP']),
    },
  });

  const batchWrite = (merge: boolean): Operation => op(merge ? 'mergeShadowBatch' : 'overwriteShadowBatch', {
    summary: merge ? 'Write a batch of timed shadow updates (merge)' : 'Write a batch of timed shadow updates (overwrite)',
    description: '1 to 100 items, applied in time order, atomically: any bad item refuses the whole batch ' +
      '(`INVALID_BATCH_ITEM` with its `index`). More than 100 items: 400 `BATCH_TOO_LARGE` with NETPIE\'s ' +
      '`errcode: 429` body (spec 8). Every item\'s numbers are recorded as points at its `ts`. The schema runs for ' +
      'every item (warnings name it by `index`); triggers run once, for the newest item; the batch is one shadow ' +
      'operation of the quota. If-Match / If-None-Match (or `rev` in the body) are checked on the shadow before the batch.',
    parameters: [aliasParameter, ...conditionHeaders],
    requestBody: { required: true, content: jsonBody('BatchRequest', batchExample) },
    responses: {
      ...withEtag(success(200, 'How many items changed the shadow.', 'BatchReply', batchReplyExample)),
      ...errorResponses(DEVICE_API_ERRORS, SHADOW_WRITE_ERRORS, ['BATCH_TOO_LARGE', 'INVALID_BATCH_ITEM']),
    },
  });

  return {
    [`${prefix}/status`]: {
      get: op('getDeviceStatus', {
        summary: 'The calling device and its connection state',
        description: '`status` is the connection state (1/0), not the HTTP code (spec 2.1).',
        responses: {
          ...success(200, 'The device.', 'DeviceStatus', {
            deviceid: DEVICE_ID, alias: 'lamp', groupid: 'lights', projectid: 'home', status: 1, enabled: true, banned: false,
          }),
          ...errorResponses(DEVICE_API_ERRORS),
        },
      }),
    },
    [`${prefix}/message`]: { put: publish('message', topicInQuery) },
    [`${prefix}/message/{topic}`]: { put: publish('message', topicInPath) },
    [`${prefix}/private`]: { put: publish('private', topicInQuery) },
    [`${prefix}/private/{topic}`]: { put: publish('private', topicInPath) },
    [`${prefix}/push`]: {
      put: op('push', {
        summary: 'Ask for a notification to the device\'s owner',
        description: 'NETPIE\'s `PUT /push` (and MQTT `@push`): a DEVICE.PUSH event; the device\'s triggers of that event ' +
          'run their event hooks with the push as `$NEW`. With no such trigger the push goes nowhere. JSON of at most 8 KiB.',
        requestBody: { required: true, content: jsonBody('PushRequest', { title: 'Door', subtitle: 'Front', body: 'opened at 21:04' }) },
        responses: {
          ...success(200, 'Accepted.', 'PushReply', { status: 200, message: 'push accepted' }),
          ...errorResponses(DEVICE_API_ERRORS, JSON_BODY_ERRORS),
        },
      }),
    },
    [`${prefix}/shadow/data`]: {
      get: op('getShadow', {
        summary: 'Read the shadow',
        description: 'A shadow never written reads as `{"data":{},"rev":0,"modified":0,"timestamp":0}` (ETag `"0"`).',
        parameters: [aliasParameter, atParameter, readConditionHeader],
        responses: {
          ...withEtag(success(200, 'The shadow.', 'Shadow', {
            status: 200, deviceid: DEVICE_ID, data: { temp: 21.5 }, rev: 3, modified: 1700000000123, timestamp: 1700000000100,
          })),
          ...NOT_MODIFIED,
          ...errorResponses(DEVICE_API_ERRORS, SHADOW_TARGET_ERRORS, AT_ERRORS, ['INVALID_CONDITION']),
        },
      }),
      put: shadowWrite(true),
      post: shadowWrite(false),
    },
    [`${prefix}/shadow/batch`]: { put: batchWrite(true), post: batchWrite(false) },
    [`${prefix}/shadow/revisions`]: {
      get: revisionsOperation(op, 'listShadowRevisions', [aliasParameter], errorResponses(DEVICE_API_ERRORS, SHADOW_TARGET_ERRORS)),
    },
  };
}
