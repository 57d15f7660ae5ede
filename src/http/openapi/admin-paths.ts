import { ErrorCode } from '../../core/errors';
import { jsonBody, success } from './content';
import { errorResponses } from './error-responses';
import { ADMIN_SECURITY } from './security';
import { Operation, Parameter, Paths } from './types';

const DEVICE = {
  deviceid: '5d0c6a52-3b1e-4f0a-9d39-2c8f1a7b9e10', alias: 'lamp', groupid: 'lights', projectid: 'home', enabled: true,
  banned: false, description: '', livenessttl: 0, created: 1700000000000, status: 0,
};
/** What the answers that issue credentials add to the record, this once (issue 20 §2). */
const ISSUED = { token: 'Yq3vQ0a1Lb8xR2nT5mW7pK9sD4fG6hJ0', secret: 'a9FzC3eB7uN1oP5iM8yX2wV6tS4rQ0lK' };
const SHOWN_ONCE = ' Sent with `Cache-Control: no-store`; no later read shows a credential (the registry keeps only ' +
  'keyed digests): a lost one is rotated.';

const IMPORTED = {
  row: 1, deviceid: DEVICE.deviceid, projectid: 'home', groupid: 'lights', alias: 'lamp', enabled: true, description: '',
  livenessttl: 0, generated: [],
};

/** The `jti` of a user token, as issued and as revoked. */
const TOKEN_JTI = '3f0c5a52-8d7e-4c1b-9a4e-2b6f1d0c7e95';

// An operator's role or projects may not reach the call (docs/operations.md "Operators, roles and the audit log").
const ADMIN_AUTH_ERRORS: ErrorCode[] = ['MISSING_CREDENTIALS', 'INVALID_CREDENTIALS', 'ROLE_FORBIDDEN', 'PROJECT_FORBIDDEN'];
const BODY_ERRORS: ErrorCode[] = ['INVALID_JSON', 'INVALID_BODY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

const deviceIdParameter: Parameter = {
  name: 'deviceid', in: 'path', required: true, schema: { type: 'string' }, example: DEVICE.deviceid,
};

const op = (id: string, fields: Omit<Operation, 'operationId' | 'tags' | 'security'>): Operation => ({
  operationId: id,
  tags: ['Admin API'],
  security: ADMIN_SECURITY,
  ...fields,
});

const deviceRecord = (description: string) => success(200, description, 'Device', DEVICE);

/** The admin API (issue 2 §2) under /v2/admin: the device registry and user tokens. */
export function adminPaths(): Paths {
  return {
    '/v2/admin/devices': {
      post: op('createDevice', {
        summary: 'Provision a device',
        description: 'The service makes `deviceid`, `token` and `secret` unless they are given (credentials brought from ' +
          'NETPIE, docs/moving-from-netpie.md): a given id must be free, a given token held by no other device. ' +
          'Projects and groups exist through their devices.' + SHOWN_ONCE,
        requestBody: { required: true, content: jsonBody('CreateDeviceRequest', { projectid: 'home', groupid: 'lights', alias: 'lamp' }) },
        responses: {
          ...success(201, 'The new device record, with its token and secret shown this once.', 'IssuedDevice', { ...DEVICE, ...ISSUED }),
          ...errorResponses(ADMIN_AUTH_ERRORS, BODY_ERRORS, ['ALIAS_TAKEN', 'DEVICE_ID_TAKEN', 'TOKEN_TAKEN']),
        },
      }),
      get: op('listDevices', {
        summary: 'List devices',
        description: 'Sorted by project, group, alias; a page of them with `limit` and `offset`, `total` counting every match.',
        parameters: [
          { name: 'projectid', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'groupid', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'q', in: 'query', required: false, description: 'Part of the alias (any case), or the start of the device id.', schema: { type: 'string', maxLength: 128 } },
          { name: 'limit', in: 'query', required: false, description: 'Page size; every device when absent.', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
          { name: 'offset', in: 'query', required: false, description: 'Devices to skip.', schema: { type: 'integer', minimum: 0, default: 0 } },
        ],
        responses: {
          ...success(200, 'The devices.', 'DeviceList', { devices: [DEVICE], total: 1 }),
          ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY']),
        },
      }),
    },
    '/v2/admin/devices/import': {
      post: op('importDevices', {
        summary: 'Register many devices at once, all or none',
        description: 'JSON `{"devices":[…]}`, each as the body of `POST /v2/admin/devices`, or CSV (`Content-Type: text/csv`) ' +
          'with a header row naming the columns. Every row is checked, against the others and the stored devices, before ' +
          'anything is written; any problem refuses the whole import with every problem of every row in `rowErrors`. ' +
          'At most 10,000 rows and 4 MiB. The answer repeats no credential that was given; those the service made appear ' +
          'in it, once (`Cache-Control: no-store`). See docs/moving-from-netpie.md.',
        parameters: [{
          name: 'dryRun', in: 'query', required: false, description: '`true`: check and report, write nothing.',
          schema: { enum: ['true', 'false'], default: 'false' },
        }],
        requestBody: {
          required: true,
          content: {
            ...jsonBody('ImportRequest', { devices: [{ deviceid: DEVICE.deviceid, token: ISSUED.token, secret: ISSUED.secret, projectid: 'home', groupid: 'lights', alias: 'lamp' }] }),
            'text/csv': {
              schema: { type: 'string' },
              example: `deviceid,token,secret,projectid,groupid,alias\n${DEVICE.deviceid},${ISSUED.token},${ISSUED.secret},home,lights,lamp\n`,
            },
          },
        },
        responses: {
          ...success(200, 'A dry run: what the import would create.', 'ImportReport', { dryRun: true, count: 1, devices: [IMPORTED] }),
          ...success(201, 'The devices created.', 'ImportReport', { dryRun: false, count: 1, devices: [IMPORTED] }),
          ...errorResponses(ADMIN_AUTH_ERRORS, BODY_ERRORS, ['INVALID_QUERY', 'IMPORT_INVALID', 'IMPORT_CONFLICT']),
        },
      }),
    },
    '/v2/admin/projects': {
      get: op('listProjects', {
        summary: 'Projects and their groups, with device counts and how many are online',
        description: 'Projects and groups exist through their devices.',
        responses: {
          ...success(200, 'Every project.', 'FleetSummary', {
            projects: [{ projectid: 'home', devices: 3, online: 1, groups: [{ groupid: 'lights', devices: 3, online: 1 }] }],
          }),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      }),
    },
    '/v2/admin/service': {
      get: op('getServiceInfo', {
        summary: 'The service\'s version and the port devices connect to over MQTT',
        responses: { ...success(200, 'What the console shows beside new credentials.', 'ServiceInfo', { version: '0.1.0', mqtt: { port: 1883 } }), ...errorResponses(ADMIN_AUTH_ERRORS) },
      }),
    },
    '/v2/admin/devices/{deviceid}': {
      get: op('getDevice', {
        summary: 'One device',
        parameters: [deviceIdParameter],
        responses: { ...deviceRecord('The device record.'), ...errorResponses(ADMIN_AUTH_ERRORS, ['DEVICE_NOT_FOUND']) },
      }),
      patch: op('updateDevice', {
        summary: 'Change a device',
        description: 'Disabling, banning or moving a device to another group closes its live MQTT session at once.',
        parameters: [deviceIdParameter],
        requestBody: { required: true, content: jsonBody('UpdateDeviceRequest', { enabled: false }) },
        responses: {
          ...deviceRecord('The changed record.'),
          ...errorResponses(ADMIN_AUTH_ERRORS, BODY_ERRORS, ['DEVICE_NOT_FOUND', 'ALIAS_TAKEN']),
        },
      }),
      delete: op('deleteDevice', {
        summary: 'Delete a device and its shadow',
        parameters: [deviceIdParameter],
        responses: { 204: { description: 'Deleted.' }, ...errorResponses(ADMIN_AUTH_ERRORS, ['DEVICE_NOT_FOUND']) },
      }),
    },
    '/v2/admin/devices/{deviceid}/token': {
      post: op('rotateDeviceToken', {
        summary: 'Give a device a new token',
        description: 'The old token stops working at once and live sessions are closed.' + SHOWN_ONCE,
        parameters: [deviceIdParameter],
        responses: {
          ...success(200, 'The record with its new token, shown this once.', 'IssuedDevice', { ...DEVICE, token: ISSUED.token }),
          ...errorResponses(ADMIN_AUTH_ERRORS, ['DEVICE_NOT_FOUND']),
        },
      }),
    },
    '/v2/admin/devices/{deviceid}/secret': {
      post: op('rotateDeviceSecret', {
        summary: 'Give a device a new secret',
        description: 'The old secret stops working at once (an MQTT CONNECT that gives one) and live sessions are closed.' + SHOWN_ONCE,
        parameters: [deviceIdParameter],
        responses: {
          ...success(200, 'The record with its new secret, shown this once.', 'IssuedDevice', { ...DEVICE, secret: ISSUED.secret }),
          ...errorResponses(ADMIN_AUTH_ERRORS, ['DEVICE_NOT_FOUND']),
        },
      }),
    },
    '/v2/admin/migrations': {
      get: op('listMigrations', {
        summary: 'Where the store\'s data migrations stand',
        description: 'The credential migration: devices whose token or secret an older release kept in plaintext, and ' +
          'whether it was completed (docs/production.md "Rolling upgrades"). Reads the whole registry: an operator\'s call.',
        responses: {
          ...success(200, 'Each migration.', 'CredentialMigrationList', { migrations: [{ name: 'credential-digests', done: false, plaintextDevices: 12 }] }),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      }),
    },
    '/v2/admin/migrations/credential-digests': {
      post: op('completeCredentialMigration', {
        summary: 'Rewrite the credentials an older release kept in plaintext as digests',
        description: 'Run once every node runs this release: an older node refuses a device whose row holds digests. ' +
          'Idempotent, safe on several nodes at once; each row is rewritten only if it still holds what was read.',
        responses: {
          ...success(200, 'The migration, done, and the rows rewritten.', 'CredentialMigration', { name: 'credential-digests', done: true, plaintextDevices: 0, rewritten: 12 }),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      }),
    },
    '/v2/admin/tokens': {
      post: op('issueUserToken', {
        summary: 'Issue a user token for the data-store API and the fleet query',
        description: 'For a project that has at least one device; 404 `PROJECT_NOT_FOUND` otherwise. 403 `ROLE_FORBIDDEN` for a grant above the caller\'s role.',
        requestBody: { required: true, content: jsonBody('IssueTokenRequest', { projectid: 'home', ttl: 86400, scope: 'read' }) },
        responses: {
          ...success(201, 'The token, its `jti` (to revoke it), when it expires (ms) and its scope (`Cache-Control: no-store`).', 'UserToken', {
            token: 'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9…', jti: TOKEN_JTI, expires: 1700086400000, scope: 'read', grants: ['read'],
          }),
          ...errorResponses(ADMIN_AUTH_ERRORS, BODY_ERRORS, ['PROJECT_NOT_FOUND']),
        },
      }),
    },
    '/v2/admin/tokens/key': {
      post: op('rotateUserTokenKey', {
        summary: 'Rotate the key that signs user tokens',
        description:
          'A new ES256 key signs and checks user tokens from now on, on every node (with STORE=cassandra the others ' +
          'pick it up within milliseconds, at worst 5 s); every token signed with the old key is refused. Issue new ' +
          'tokens after rotating.',
        responses: {
          ...success(200, 'The id of the new key: the `kid` of the tokens it signs.', 'UserTokenKey', { kid: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' }),
          ...errorResponses(ADMIN_AUTH_ERRORS, ['BACKEND_UNAVAILABLE']),
        },
      }),
    },
    '/v2/admin/tokens/{jti}': {
      delete: op('revokeUserToken', {
        summary: 'Revoke one user token',
        description:
          'The token whose `jti` this is (as `POST /v2/admin/tokens` answered it) is refused from now on with 401 ' +
          '`INVALID_CREDENTIALS`: at once by this node, by the others of a cluster within milliseconds, at worst 5 s. ' +
          'Idempotent: 204 again for a token revoked already, or for a `jti` no token has. The revocation is kept for a ' +
          'year and a day, past the end of any token, then forgotten. Tokens issued without a `jti` are ended only by ' +
          'rotating the key.',
        parameters: [{
          name: 'jti', in: 'path', required: true, description: 'The token\'s `jti` claim: a UUID.',
          schema: { type: 'string', format: 'uuid' }, example: TOKEN_JTI,
        }],
        responses: { 204: { description: 'Revoked.' }, ...errorResponses(ADMIN_AUTH_ERRORS, ['INVALID_QUERY', 'BACKEND_UNAVAILABLE']) },
      }),
    },
  };
}
