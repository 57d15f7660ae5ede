import { ErrorCode } from '../../core/errors';
import { CONNECTION_LOG_LIMITS } from '../../connections/limits';
import { jsonBody, success } from './content';
import { errorResponses } from './error-responses';
import { ADMIN_SECURITY } from './security';
import { Operation, Paths, Schema, schemaRef } from './types';

const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN', 'PROJECT_FORBIDDEN'];
const BODY_ERRORS: ErrorCode[] = ['INVALID_JSON', 'INVALID_BODY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

const DEVICEID = '5b3c1f2e-8a4d-4e6f-9a1b-2c3d4e5f6a7b';
const Transport: Schema = { type: 'string', enum: ['tcp', 'tls', 'ws', 'wss'] };
const Time: Schema = { type: 'string', format: 'date-time' };
const Count: Schema = { type: 'integer', minimum: 0 };

const LIVE = {
  node: 'node-a', transport: 'tcp', version: 4, address: '203.0.113.7', connectedSince: '2026-11-27T21:00:00.000Z', keepalive: 60,
  clean: true, subscriptions: [{ filter: '@msg/room/+/temp', qos: 1 }], queued: 0, inFlight: 0,
};
const HISTORY = [
  { at: '2026-11-27T21:00:00.000Z', node: 'node-a', kind: 'connected', transport: 'tcp', version: 4, address: '203.0.113.7' },
  { at: '2026-11-27T20:59:58.000Z', node: 'node-a', kind: 'refused', transport: 'tcp', version: 4, address: '203.0.113.7', reason: 'bad credentials', detail: 'wrong token' },
];

/** Schemas of the connection inspector (components.schemas). */
export const CONNECTION_SCHEMAS: Readonly<Record<string, Schema>> = {
  LiveConnection: {
    type: 'object', additionalProperties: false,
    required: ['node', 'transport', 'version', 'address', 'connectedSince', 'keepalive', 'clean', 'subscriptions'],
    properties: {
      node: { type: 'string', description: 'The NODE_ID of the node the device is connected to.' },
      transport: Transport,
      version: { type: 'integer', enum: [3, 4, 5], description: 'The MQTT protocol level: 3 (3.1), 4 (3.1.1) or 5.' },
      address: { type: 'string', description: "The device's address (behind a balancer speaking the PROXY protocol, the one it names)." },
      connectedSince: Time,
      keepalive: { ...Count, description: 'Seconds, as the CONNECT asked; 0: none.' },
      clean: { type: 'boolean', description: 'Clean Session (3.1.1) or Clean Start (5).' },
      subscriptions: {
        type: 'array',
        items: { type: 'object', required: ['filter', 'qos'], additionalProperties: false, properties: { filter: { type: 'string' }, qos: { type: 'integer', enum: [0, 1, 2] } } },
        description: 'Filters as the device wrote them, with the QoS granted.',
      },
      queued: { ...Count, description: "Messages in the session's queue not yet sent; absent when the session store did not answer." },
      inFlight: { ...Count, description: 'Messages sent and not yet acknowledged.' },
    },
  },
  ConnectionEvent: {
    type: 'object', required: ['at', 'node', 'kind'], additionalProperties: false,
    properties: {
      at: Time,
      node: { type: 'string' },
      kind: { type: 'string', enum: ['connected', 'disconnected', 'refused', 'kicked'] },
      transport: Transport,
      version: { type: 'integer' },
      address: { type: 'string' },
      reason: {
        type: 'string',
        description: 'disconnected: client DISCONNECT, keepalive timeout, socket error, connection lost, taken over, kicked, node stopping; ' +
          'refused: bad credentials, disabled, banned, rate limit, quota, throttled guessing, protocol, service unavailable; kicked: the kick\'s reason.',
      },
      detail: { type: 'string', maxLength: CONNECTION_LOG_LIMITS.detailLength, description: 'What the service said; never a credential.' },
    },
  },
  DeviceConnections: {
    type: 'object', required: ['deviceid', 'connections', 'history', 'nodes'], additionalProperties: false,
    properties: {
      deviceid: { type: 'string' },
      connections: { type: 'array', items: schemaRef('LiveConnection') },
      history: { type: 'array', items: schemaRef('ConnectionEvent'), description: `Newest first; the last ${CONNECTION_LOG_LIMITS.eventsPerDevice} events of each node.` },
      nodes: {
        type: 'object', required: ['answered', 'silent'], additionalProperties: false,
        properties: {
          answered: { type: 'array', items: { type: 'string' } },
          silent: { type: 'array', items: { type: 'string' }, description: `Nodes that did not answer within ${CONNECTION_LOG_LIMITS.gatherTimeoutMs} ms: their part is missing.` },
        },
      },
    },
  },
  KickRequest: {
    type: 'object', additionalProperties: false,
    properties: { reason: { type: 'string', maxLength: CONNECTION_LOG_LIMITS.kickReasonLength } },
  },
  Kick: {
    type: 'object', required: ['deviceid', 'reason'], additionalProperties: false,
    properties: { deviceid: { type: 'string' }, reason: { type: 'string', description: 'As recorded, and told to MQTT 5 clients in DISCONNECT.' } },
  },
};

const deviceParameter = { name: 'deviceid', in: 'path' as const, required: true, schema: { type: 'string' }, example: DEVICEID };

const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
  operationId: id, tags: ['Admin API'], security: ADMIN_SECURITY, ...fields,
});

/** The connection inspector (issue 24 §2; docs/operations.md "Connection inspector"). */
export function connectionPaths(): Paths {
  return {
    '/v2/admin/devices/{deviceid}/connections': {
      get: op('getDeviceConnections', {
        summary: "A device's MQTT connections and their recent history, on every node (viewer)",
        description: 'Live connections (transport, version, address, since, keepalive, subscriptions, queue) and the recent ' +
          'connects, disconnects with their reason, refusals and kicks, gathered from every node over the backbone.',
        parameters: [deviceParameter],
        responses: {
          ...success(200, "The device's connections.", 'DeviceConnections', {
            deviceid: DEVICEID, connections: [LIVE], history: HISTORY, nodes: { answered: ['node-a', 'node-b'], silent: [] },
          }),
          ...errorResponses(ADMIN_AUTH_ERRORS, ['DEVICE_NOT_FOUND']),
        },
      }),
    },
    '/v2/admin/devices/{deviceid}/kick': {
      post: op('kickDevice', {
        summary: "Close a device's MQTT sessions on every node (operator)",
        description: 'The kick and each closed session are recorded in the history; MQTT 5 clients get DISCONNECT 0x98 ' +
          '(Administrative action) with the reason. The device may connect again at once: disable or ban it to keep it out.',
        parameters: [deviceParameter],
        requestBody: { required: false, content: jsonBody('KickRequest', { reason: 'firmware swap' }) },
        responses: {
          ...success(200, 'Kicked.', 'Kick', { deviceid: DEVICEID, reason: 'kicked by an operator: firmware swap' }),
          ...errorResponses(ADMIN_AUTH_ERRORS, BODY_ERRORS, ['DEVICE_NOT_FOUND']),
        },
      }),
    },
  };
}
