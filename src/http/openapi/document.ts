import { version } from '../../../package.json';
import { adminPaths } from './admin-paths';
import { APPLICATION_SCHEMAS, applicationPaths } from './application-paths';
import { automationPaths } from './automation-paths';
import { CONNECTION_SCHEMAS, connectionPaths } from './connection-paths';
import { DATATAG_SCHEMAS, datatagPaths } from './datatag-paths';
import { consolePaths } from './console-paths';
import { devicePaths } from './device-paths';
import { DESIRED_SCHEMAS, desiredPaths } from './desired-paths';
import { docsPaths } from './docs-paths';
import { feedPaths } from './feed-paths';
import { FLEET_SCHEMAS, fleetPaths } from './fleet-paths';
import { KAIROS_API_SCHEMAS, kairosApiPaths } from './kairos-api-paths';
import { operatorPaths, OPERATOR_SCHEMAS } from './operator-paths';
import { opsPaths } from './ops-paths';
import { RETENTION_SCHEMAS, retentionPaths } from './retention-paths';
import { ROLLUP_SCHEMAS, rollupPaths } from './rollup-paths';
import { SCHEMAS } from './schemas';
import { SECURITY_SCHEMES } from './security';
import { PathItem, Paths } from './types';

const DESCRIPTION = `A NETPIE-2020-compatible device messaging, shadow and time-series service.

- **Device API** under \`/v2/device\` (also \`/device\`): \`Authorization: Device <ClientID>:<token>\` or Basic.
- **Data store** in KairosDB's format under \`/v2/feed/api/v1\` (also \`/feed/api/v1\`): a user token, device credentials
  (also as Basic), or the admin token.
- **Admin API** under \`/v2/admin\`: \`Authorization: Bearer <ADMIN_TOKEN | operator key>\`.

Every error has one shape (schema \`Error\`). Any path answers 404 \`ROUTE_NOT_FOUND\` when it does not exist and 405
\`METHOD_NOT_ALLOWED\` when the method does not; \`HEAD\` works wherever \`GET\` does. The MQTT broker is not HTTP and is
described in docs/mqtt.md.

**Trying it** (at \`/trial\`): press **Authorize** and paste \`Device <ClientID>:<token>\` into *DeviceAuth* (or the
ClientID and token into *DeviceBasic*), a user token into *UserToken*, or the admin token into *AdminToken*; then open
a call and press **Execute**. Started with \`DEMO=true\`, the service prints demo credentials to paste.`;

/** The OpenAPI 3.1 document of the whole HTTP API, served at /openapi.json and kept true by test/integration/docs. */
export function openApiDocument(): Readonly<Record<string, unknown>> {
  const paths = mergePaths(
    devicePaths('/v2/device'),
    desiredPaths(),
    fleetPaths(),
    feedPaths('/v2/feed'),
    kairosApiPaths('/v2/feed'),
    adminPaths(),
    automationPaths(),
    retentionPaths(),
    rollupPaths(),
    datatagPaths(),
    consolePaths(),
    operatorPaths(),
    applicationPaths(),
    connectionPaths(),
    devicePaths('/device'),
    feedPaths('/feed'),
    kairosApiPaths('/feed'),
    opsPaths(),
    docsPaths(),
  );
  return {
    openapi: '3.1.0',
    info: { title: 'openpie HTTP API', version, description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: '/', description: 'This service' }],
    tags: [
      { name: 'Device API', description: 'Devices publish, send private messages and keep their shadow (spec 4.1-4.6).' },
      { name: 'Data store (KairosDB format)', description: 'Time-series points recorded from shadow writes.' },
      { name: 'Admin API', description: 'Device registry and user tokens.' },
      { name: 'Desired state (user tokens)', description: 'A device\'s desired state, for a user token with the grant `desired`.' },
      { name: 'Fleet query (user tokens)', description: 'The shadows of a project, filtered, sorted and paged, for a user token with the grant `fleet`.' },
      { name: 'Device API (/device alias)', description: 'The Device API without /v2, as NETPIE clients also call it.' },
      { name: 'Data store (/feed alias)', description: 'The data store without /v2.' },
      { name: 'Operations', description: 'Health, readiness and Prometheus metrics.' },
      { name: 'Documentation', description: 'This document and the explorer.' },
      { name: 'Web console', description: 'The operators\' console at /console (admin-token login).' },
    ],
    paths,
    components: { schemas: { ...SCHEMAS, ...KAIROS_API_SCHEMAS, ...OPERATOR_SCHEMAS, ...APPLICATION_SCHEMAS, ...CONNECTION_SCHEMAS, ...RETENTION_SCHEMAS, ...ROLLUP_SCHEMAS, ...DATATAG_SCHEMAS, ...DESIRED_SCHEMAS, ...FLEET_SCHEMAS }, securitySchemes: SECURITY_SCHEMES },
  };
}

/** The paths of every part; a path two parts share (GET and POST /datapoints/query) gets the methods of both. */
function mergePaths(...parts: Paths[]): Paths {
  const merged: Record<string, PathItem> = {};
  for (const part of parts) {
    for (const [path, item] of Object.entries(part)) merged[path] = { ...merged[path], ...item };
  }
  return merged;
}
