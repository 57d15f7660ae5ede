import { SHADOW_LIMITS } from '../../shadows/limits';
import { AUTOMATION_SCHEMAS } from './automation-schemas';
import { ErrorSchema } from './error-responses';
import { FEED_SCHEMAS } from './feed-schemas';
import { Schema, schemaRef } from './types';

/** The same rules as the io-ts codecs (src/core/codecs.ts, src/devices/codecs.ts, src/shadows/codecs.ts). */
const ScopeId: Schema = {
  type: 'string',
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
  description: '1-64 characters of `A-Z a-z 0-9 _ . -`, starting with a letter or digit.',
};
const Alias: Schema = {
  type: 'string', minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f]*$',
  description: '1-128 characters, not blank, no control characters; unique in its group.',
};
/** The codecs' DeviceId and DeviceKey (devices/codecs.ts); "8 different characters" is checked by the service only. */
const GivenDeviceId: Schema = {
  type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  description: 'A ClientID brought along: a UUID in lowercase. Made by the service when absent.',
};
const KEY_PATTERN = '^[A-Za-z0-9._~-]{16,128}$';
const GivenKey = (what: string): Schema => ({
  type: 'string', pattern: KEY_PATTERN,
  description: `${what} brought along: 16-128 characters of \`A-Z a-z 0-9 . _ ~ -\`, at least 8 different ones. ` +
    'Made by the service (32 letters and digits) when absent.',
});
const Description: Schema = { type: 'string', maxLength: 1024 };
const LivenessTtl: Schema = { type: 'integer', minimum: 0, maximum: 604_800, description: 'Seconds; 0 = off.' };
const Millis: Schema = { type: 'integer', description: 'Epoch milliseconds.' };
const WriteTime: Schema = {
  type: 'integer',
  description: `Milliseconds. Below ${SHADOW_LIMITS.relativeThresholdMs} relative to now (negative = past), from it up ` +
    'absolute epoch ms (spec 4.6). Before 1970 or more than 24 h ahead is refused.',
};
const ShadowData: Schema = {
  type: 'object',
  description: `Shadow fields: a JSON object, at most ${SHADOW_LIMITS.maxDepth} levels deep, member names of 1-` +
    `${SHADOW_LIMITS.maxKeyLength} characters. In writes, \`null\` deletes a member.`,
  additionalProperties: true,
};
const WriteOptions = {
  merged: { type: 'boolean', description: 'Beats the method: `true` merges, `false` overwrites.' },
  store: { type: 'boolean', description: '`false` records no time-series points for this write.' },
  trigger: { type: 'boolean', description: '`false`: this write runs no triggers.' },
  rev: {
    type: 'integer',
    minimum: 0,
    description: 'Write only if the shadow is at this revision (0: never written), as If-Match does; else 412 ' +
      '`REV_MISMATCH` and nothing applied. Over MQTT, the only way to make a write conditional.',
  },
};
const ShadowMembers = {
  deviceid: { type: 'string', format: 'uuid' },
  data: ShadowData,
  rev: { type: 'integer', minimum: 0, description: '+1 per applied write; 0 before the first.' },
  modified: { ...Millis, description: 'Server time (ms) of the last applied write; 0 before the first.' },
  timestamp: { ...Millis, description: 'Data time (ms) of the last applied write; 0 before the first.' },
};

const DEVICE_FIELDS: Record<string, Schema> = {
    deviceid: { type: 'string', format: 'uuid', description: 'ClientID: made by the service, or given when the device was created.' },
    alias: Alias,
    groupid: ScopeId,
    projectid: ScopeId,
    enabled: { type: 'boolean' },
    banned: { type: 'boolean' },
    description: Description,
    livenessttl: LivenessTtl,
    created: Millis,
    status: { enum: [0, 1], description: '1 while connected over MQTT or within `livenessttl` of its last REST call.' },
};
const DEVICE_REQUIRED = ['deviceid', 'alias', 'groupid', 'projectid', 'enabled', 'banned', 'description', 'livenessttl', 'created', 'status'];

const Device: Schema = {
  type: 'object',
  description: 'A device record of the registry, with its live connection state. Never its token or secret: the registry ' +
    'keeps only their keyed digests, and only the answer that issues them shows them (IssuedDevice).',
  required: DEVICE_REQUIRED,
  additionalProperties: false,
  properties: DEVICE_FIELDS,
};

/** The answer that creates a device or rotates a credential: the record, and what was issued, shown this once. */
const IssuedDevice: Schema = {
  type: 'object',
  description: 'The device record with the credentials just issued (both on creation, the rotated one on a rotation). ' +
    'Shown this once, with `Cache-Control: no-store`: no later read shows them; a lost one is rotated.',
  required: DEVICE_REQUIRED,
  additionalProperties: false,
  properties: {
    ...DEVICE_FIELDS,
    token: { type: 'string', pattern: KEY_PATTERN, description: 'MQTT username; 32 letters and digits when made by the service.' },
    secret: { type: 'string', pattern: KEY_PATTERN, description: 'MQTT password (may also be left empty when connecting).' },
  },
};

const CredentialMigration: Schema = {
  type: 'object',
  description: 'The rewrite of credentials an older release kept in plaintext as keyed digests (docs/production.md "Rolling upgrades").',
  required: ['name', 'done', 'plaintextDevices'],
  additionalProperties: false,
  properties: {
    name: { enum: ['credential-digests'] },
    done: { type: 'boolean', description: 'True once completed: every device\'s credentials are kept as digests.' },
    plaintextDevices: { type: 'integer', minimum: 0, description: 'Devices whose token or secret is still kept in plaintext.' },
    rewritten: { type: 'integer', minimum: 0, description: 'Rows this completion rewrote (only in its answer).' },
  },
};

/** components.schemas: every body of the API, by name. */
export const SCHEMAS: Readonly<Record<string, Schema>> = {
  Error: ErrorSchema,
  DeviceStatus: {
    type: 'object',
    description: 'The one body whose `status` is not the HTTP code but the connection state (spec 2.1).',
    required: ['deviceid', 'alias', 'groupid', 'projectid', 'status', 'enabled', 'banned'],
    additionalProperties: false,
    properties: {
      deviceid: { type: 'string', format: 'uuid' },
      alias: Alias,
      groupid: ScopeId,
      projectid: ScopeId,
      status: { enum: [0, 1], description: 'Connection state: 1 online, 0 offline.' },
      enabled: { type: 'boolean' },
      banned: { type: 'boolean' },
    },
  },
  PublishReply: {
    type: 'object',
    required: ['status', 'message'],
    additionalProperties: false,
    properties: { status: { const: 200 }, message: { type: 'string', examples: ['published to @msg/home/lamp'] } },
  },
  PushRequest: {
    type: 'object',
    required: ['title', 'body'],
    additionalProperties: false,
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 256 },
      subtitle: { type: 'string', maxLength: 256 },
      body: { type: 'string', maxLength: 4096 },
    },
  },
  PushReply: {
    type: 'object',
    required: ['status', 'message'],
    additionalProperties: false,
    properties: { status: { const: 200 }, message: { const: 'push accepted' } },
  },
  Shadow: {
    type: 'object',
    required: ['status', 'deviceid', 'data', 'rev', 'modified', 'timestamp'],
    additionalProperties: false,
    properties: { status: { const: 200 }, ...ShadowMembers },
  },
  ShadowRevisions: {
    type: 'object',
    description: 'A page of the shadow\'s kept revisions, newest first (docs/device-api.md "Shadow history").',
    required: ['status', 'deviceid', 'revisions'],
    additionalProperties: false,
    properties: {
      status: { const: 200 },
      deviceid: { type: 'string', format: 'uuid' },
      revisions: {
        type: 'array',
        items: { type: 'object', required: ['deviceid', 'data', 'rev', 'modified', 'timestamp'], additionalProperties: false, properties: ShadowMembers },
      },
      next: { type: 'string', description: 'Given back as `cursor` for the next, older page; absent on the last page.' },
    },
  },
  ShadowWriteReply: {
    type: 'object',
    description: 'The whole resulting shadow, and whether this write changed it.',
    required: ['status', 'deviceid', 'data', 'rev', 'modified', 'timestamp', 'applied'],
    additionalProperties: false,
    properties: {
      status: { const: 200 },
      ...ShadowMembers,
      applied: { type: 'boolean', description: '`false` when the write was older than the shadow: nothing changed.' },
      warnings: schemaRef('FieldWarnings'),
      warningsOmitted: { type: 'integer', minimum: 1 },
    },
  },
  ShadowWriteRequest: {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: { data: ShadowData, timestamp: WriteTime, ...WriteOptions },
  },
  BatchItem: {
    type: 'object',
    description: 'One item: `ts`, or its other name `timestamp`, exactly one of them.',
    required: ['data'],
    additionalProperties: false,
    properties: { data: ShadowData, ts: WriteTime, timestamp: WriteTime },
    oneOf: [{ required: ['ts'] }, { required: ['timestamp'] }],
  },
  BatchRequest: {
    type: 'object',
    required: ['batch'],
    additionalProperties: false,
    properties: {
      batch: { type: 'array', minItems: 1, maxItems: SHADOW_LIMITS.maxBatchItems, items: schemaRef('BatchItem') },
      ackid: { type: ['string', 'number'], description: 'Echoed in the reply.' },
      ...WriteOptions,
    },
  },
  BatchReply: {
    type: 'object',
    required: ['deviceid', 'response'],
    additionalProperties: false,
    properties: {
      deviceid: { type: 'string', format: 'uuid' },
      response: {
        type: 'object',
        required: ['total', 'applied', 'mints', 'maxts'],
        additionalProperties: false,
        properties: {
          ackid: { type: ['string', 'number'] },
          total: { type: 'integer', description: 'Items in the batch.' },
          applied: { type: 'integer', description: 'Items that changed the shadow; the rest were older than it.' },
          mints: Millis,
          maxts: Millis,
          warnings: schemaRef('FieldWarnings'),
          warningsOmitted: { type: 'integer', minimum: 1 },
        },
      },
    },
  },
  Device,
  IssuedDevice,
  CredentialMigration,
  CredentialMigrationList: {
    type: 'object',
    required: ['migrations'],
    additionalProperties: false,
    properties: { migrations: { type: 'array', items: schemaRef('CredentialMigration') } },
  },
  DeviceList: {
    type: 'object',
    required: ['devices', 'total'],
    additionalProperties: false,
    properties: {
      devices: { type: 'array', items: schemaRef('Device') },
      total: { type: 'integer', minimum: 0, description: 'Devices that match, on every page.' },
    },
  },
  FleetSummary: {
    type: 'object',
    required: ['projects'],
    additionalProperties: false,
    properties: {
      projects: {
        type: 'array',
        items: {
          type: 'object',
          required: ['projectid', 'devices', 'online', 'groups'],
          additionalProperties: false,
          properties: {
            projectid: ScopeId,
            devices: { type: 'integer', minimum: 1 },
            online: { type: 'integer', minimum: 0 },
            groups: {
              type: 'array',
              items: {
                type: 'object',
                required: ['groupid', 'devices', 'online'],
                additionalProperties: false,
                properties: { groupid: ScopeId, devices: { type: 'integer', minimum: 1 }, online: { type: 'integer', minimum: 0 } },
              },
            },
          },
        },
      },
    },
  },
  ServiceInfo: {
    type: 'object',
    required: ['version', 'mqtt'],
    additionalProperties: false,
    properties: {
      version: { type: 'string' },
      mqtt: { type: 'object', required: ['port'], additionalProperties: false, properties: { port: { type: 'integer', minimum: 1, maximum: 65535 } } },
    },
  },
  CreateDeviceRequest: {
    type: 'object',
    required: ['projectid', 'groupid', 'alias'],
    additionalProperties: false,
    properties: {
      projectid: ScopeId, groupid: ScopeId, alias: Alias, description: Description,
      livenessttl: LivenessTtl, enabled: { type: 'boolean', default: true },
      deviceid: GivenDeviceId, token: GivenKey('Token (MQTT username); held by no other device'), secret: GivenKey('Secret (MQTT password)'),
    },
  },
  ImportRequest: {
    type: 'object',
    required: ['devices'],
    additionalProperties: false,
    properties: { devices: { type: 'array', minItems: 1, maxItems: 10_000, items: schemaRef('CreateDeviceRequest') } },
  },
  ImportReport: {
    type: 'object',
    required: ['dryRun', 'count', 'devices'],
    additionalProperties: false,
    properties: {
      dryRun: { type: 'boolean' },
      count: { type: 'integer', description: 'Devices created, or that a dry run would create.' },
      devices: {
        type: 'array',
        items: {
          type: 'object',
          required: ['row', 'projectid', 'groupid', 'alias', 'enabled', 'description', 'livenessttl', 'generated'],
          additionalProperties: false,
          properties: {
            row: { type: 'integer', minimum: 1, description: 'Its place in the import, the first being 1.' },
            deviceid: { type: 'string', format: 'uuid', description: 'Absent in a dry run when the service is to make it.' },
            projectid: ScopeId, groupid: ScopeId, alias: Alias, enabled: { type: 'boolean' }, description: Description,
            livenessttl: LivenessTtl,
            generated: {
              type: 'array', items: { enum: ['deviceid', 'token', 'secret'] },
              description: 'The credentials the service made (or will make) for this device.',
            },
            token: { type: 'string', description: 'Only when made by the service, and not in a dry run: shown this once.' },
            secret: { type: 'string', description: 'Only when made by the service, and not in a dry run: shown this once.' },
          },
        },
      },
    },
  },
  UpdateDeviceRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      alias: Alias, groupid: ScopeId, enabled: { type: 'boolean' }, banned: { type: 'boolean' },
      description: Description, livenessttl: LivenessTtl,
    },
  },
  IssueTokenRequest: {
    type: 'object',
    required: ['projectid'],
    additionalProperties: false,
    properties: {
      projectid: ScopeId,
      ttl: { type: 'integer', minimum: 1, maximum: 31_536_000, default: 86_400, description: 'Lifetime in seconds.' },
      scope: {
        enum: ['read', 'write'],
        default: 'read',
        description: '`read` queries the project\'s devices; `write` also deletes their history (`POST /datapoints/delete`, `DELETE /metric/{deviceid}`).',
      },
      grants: {
        type: 'array',
        items: { enum: ['read', 'write', 'fleet', 'desired'] },
        description: 'Grants beside `scope` (the token holds both): `fleet` runs the fleet query (`POST /v2/shadows/query`), `desired` writes devices\' desired state. `write` and `desired` need the role admin, the others viewer.',
      },
    },
  },
  UserToken: {
    type: 'object',
    required: ['token', 'jti', 'expires', 'scope', 'grants'],
    additionalProperties: false,
    properties: {
      token: { type: 'string', description: 'ES256 JWT (`iss: cer:usertoken`) for the data-store API.' },
      jti: { type: 'string', format: 'uuid', description: 'The token\'s `jti` claim: `DELETE /v2/admin/tokens/{jti}` revokes it.' },
      expires: Millis,
      scope: { enum: ['read', 'write'] },
      grants: { type: 'array', items: { enum: ['read', 'write', 'fleet', 'desired'] }, description: 'Every grant of the token, `read` first.' },
    },
  },
  UserTokenKey: {
    type: 'object',
    required: ['kid'],
    additionalProperties: false,
    properties: {
      kid: { type: 'string', description: 'The RFC 7638 thumbprint of the new public key, as the `kid` header of the tokens it signs.' },
    },
  },
  ...FEED_SCHEMAS,
  ...AUTOMATION_SCHEMAS,
};
