import { ErrorCode } from '../../core/errors';
import { MESSAGE_LIMITS } from '../../messaging/limits';
import { PREVIEW_BYTES } from '../admin-console-router';
import { jsonBody, success } from './content';
import { AT_ERRORS, atParameter, revisionsOperation } from './history-paths';
import { CONDITION_ERRORS, conditionHeaders, NOT_MODIFIED, readConditionHeader, withEtag } from './shadow-conditions';
import { errorResponses, JSON_BODY_ERRORS } from './error-responses';
import { ADMIN_SECURITY, PUBLIC } from './security';
import { Operation, Parameter, Paths, Schema } from './types';

const DEVICE_ID = '5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10';
// An operator's role or projects may not reach the call (docs/operations.md "Operators, roles and the audit log").
const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN', 'PROJECT_FORBIDDEN'];

const adminOp = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
  operationId: id,
  tags: ['Admin API'],
  security: ADMIN_SECURITY,
  ...fields,
});

const consoleOp = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
  operationId: id,
  tags: ['Web console'],
  security: PUBLIC,
  ...fields,
});

const deviceIdParameter: Parameter = { name: 'deviceid', in: 'path', required: true, schema: { type: 'string' }, example: DEVICE_ID };
const ScopeIdSchema: Schema = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' };
const groupParameters: Parameter[] = [
  { name: 'projectid', in: 'path', required: true, schema: ScopeIdSchema, example: 'home' },
  { name: 'groupid', in: 'path', required: true, schema: ScopeIdSchema, example: 'lights' },
];

const SHADOW = { status: 200, deviceid: DEVICE_ID, data: { temp: 21.5, config: { mode: 'eco' } }, rev: 3, modified: 1700000000123, timestamp: 1700000000100 };

const GroupPublishRequest: Schema = {
  type: 'object',
  required: ['topic', 'payload'],
  additionalProperties: false,
  properties: {
    topic: { type: 'string', description: 'Without `@msg/`: the Device API\'s topic rules (no wildcards, no empty level).' },
    payload: { type: 'string', description: `UTF-8 text, at most ${MESSAGE_LIMITS.maxPayloadBytes} bytes.` },
  },
};

const EVENT_STREAM_EXAMPLE =
  'retry: 3000\n\n' +
  'id: 1\nevent: ready\ndata: {"projectid":"home","groupid":"lights","topic":"@msg/#"}\n\n' +
  'id: 2\nevent: message\ndata: {"topic":"@msg/home/lamp","payload":"ON","encoding":"utf8","bytes":2,"truncated":false,"ts":1700000000000}\n\n';

const html = (description: string) => ({ 200: { description, content: { 'text/html': { schema: { type: 'string' } } } } });

/** The admin routes of the web console and the console itself (src/http/admin-console-router.ts, console-router.ts). */
export function consolePaths(): Paths {
  return {
    '/v2/admin/devices/{deviceid}/shadow': {
      get: adminOp('readDeviceShadow', {
        summary: 'A device\'s shadow',
        description: 'What the device itself reads with `GET /v2/device/shadow/data`, `?at=` included.',
        parameters: [deviceIdParameter, atParameter, readConditionHeader],
        responses: {
          ...withEtag(success(200, 'The shadow.', 'Shadow', SHADOW)),
          ...NOT_MODIFIED,
          ...errorResponses(ADMIN_AUTH_ERRORS, ['DEVICE_NOT_FOUND', 'INVALID_QUERY', 'INVALID_CONDITION'], AT_ERRORS),
        },
      }),
      put: adminOp('writeDeviceShadow', {
        summary: 'Write a device\'s shadow (merge)',
        description: 'The body and rules of `PUT /v2/device/shadow/data`, as if the device wrote it: a deep merge where ' +
          '`null` deletes a member (`merged:false` overwrites), points recorded unless `store:false`, conditional with ' +
          'If-Match / If-None-Match.',
        parameters: [deviceIdParameter, ...conditionHeaders],
        requestBody: { required: true, content: jsonBody('ShadowWriteRequest', { data: { config: { mode: 'away' }, old: null } }) },
        responses: {
          ...withEtag(success(200, 'The whole resulting shadow and whether the write changed it.', 'ShadowWriteReply', { ...SHADOW, rev: 4, applied: true })),
          ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, ['INVALID_TIMESTAMP', 'DEVICE_NOT_FOUND', 'SHADOW_TOO_LARGE'], CONDITION_ERRORS),
        },
      }),
    },
    '/v2/admin/devices/{deviceid}/shadow/revisions': {
      get: revisionsOperation(adminOp, 'listDeviceShadowRevisions', [deviceIdParameter],
        errorResponses(ADMIN_AUTH_ERRORS, ['DEVICE_NOT_FOUND', 'INVALID_QUERY'])),
    },
    '/v2/admin/groups/{projectid}/{groupid}/messages': {
      get: adminOp('watchGroupMessages', {
        summary: 'The group\'s `@msg` traffic, live (Server-Sent Events)',
        description: 'A `text/event-stream` that stays open. First a `ready` event, once the service is listening; ' +
          'then one `message` event per message on `@msg/#` in the group, from devices (MQTT, REST, CoAP) and the admin ' +
          'API alike: `{topic, payload, encoding, bytes, truncated, ts}`. `payload` is the text (`encoding:"utf8"`), or ' +
          `base64 when the payload is not UTF-8, cut to its first ${PREVIEW_BYTES} bytes (\`truncated\`; \`bytes\` is the ` +
          'whole length); `ts` is server time in ms. A client that reads too slowly loses events and is told so by a ' +
          '`dropped` event `{count}`; a comment line every 15 s keeps the connection alive. The stream ends when the ' +
          'service stops. Browsers: `EventSource` cannot send `Authorization`, so read it with `fetch`.',
        parameters: groupParameters,
        responses: {
          200: { description: 'The event stream.', content: { 'text/event-stream': { schema: { type: 'string' }, example: EVENT_STREAM_EXAMPLE } } },
          ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']),
        },
      }),
      post: adminOp('publishToGroup', {
        summary: 'Publish on `@msg/{topic}` in the group',
        description: 'Reaches the group\'s MQTT subscribers and live views, as a device of the group publishing would.',
        parameters: groupParameters,
        requestBody: { required: true, content: { 'application/json': { schema: GroupPublishRequest, example: { topic: 'home/lamp', payload: 'ON' } } } },
        responses: {
          ...success(200, 'Published.', 'PublishReply', { status: 200, message: 'published to @msg/home/lamp' }),
          ...errorResponses(ADMIN_AUTH_ERRORS, JSON_BODY_ERRORS, ['INVALID_QUERY', 'INVALID_TOPIC']),
        },
      }),
    },
    '/console': {
      get: consoleOp('getConsole', {
        summary: 'The web console',
        description: 'Also at `/console/`. Log in with the admin token; the page calls the admin and data-store APIs.',
        responses: html('The console page.'),
      }),
    },
    '/console/{file}': {
      get: consoleOp('getConsoleAsset', {
        summary: 'Static files of the console (ES modules, CSS)',
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' }, example: 'app.js' }],
        responses: {
          200: {
            description: 'The file (revalidated by ETag).',
            content: {
              'text/html': { schema: { type: 'string' } },
              'text/javascript': { schema: { type: 'string' } },
              'text/css': { schema: { type: 'string' } },
            },
          },
          ...errorResponses(['ROUTE_NOT_FOUND']),
        },
      }),
    },
    '/console/vendor/{file}': {
      get: consoleOp('getConsoleLibrary', {
        summary: 'The libraries the console loads from node_modules (uPlot, mqtt.js)',
        description: 'Only `uPlot.esm.js`, `uPlot.min.css` and `mqtt.esm.js`; any other name is 404.',
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' }, example: 'uPlot.esm.js' }],
        responses: {
          200: {
            description: 'The file (revalidated by ETag).',
            content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
          },
          ...errorResponses(['ROUTE_NOT_FOUND']),
        },
      }),
    },
  };
}
