import { SecurityRequirement } from './types';

/**
 * components.securitySchemes (OAS 3.1 §4.8.27). `Device <ClientID>:<token>` is not an HTTP auth scheme that
 * OpenAPI knows, so it is an API key carried whole in the Authorization header: paste `Device <id>:<token>`.
 */
export const SECURITY_SCHEMES = {
  DeviceAuth: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'The whole header value: `Device <ClientID>:<token>` (ClientID = deviceid; spec 5).',
  },
  DeviceBasic: {
    type: 'http',
    scheme: 'basic',
    description: 'Username = ClientID (deviceid), password = the device token (netpie reference §5.1).',
  },
  UserToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A user token from `POST /v2/admin/tokens`: reads every device of its project in the data-store API, and ' +
      'with `"scope": "write"` deletes their history; its grants `fleet` and `desired` open the fleet query and devices\' ' +
      'desired state (docs/operations.md "User-token grants"). Grafana\'s Basic auth may carry it as the password (any username).',
  },
  AdminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The service\'s `ADMIN_TOKEN` (printed on first start, kept in `DATA_DIR/admin-token`), or an operator ' +
      'key (`opk.<name>.<secret>`, from `POST /v2/admin/operators`), limited to its role and projects.',
  },
  MetricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: '`METRICS_TOKEN`, when set, for `GET /metrics`.',
  },
} as const;

type SchemeName = keyof typeof SECURITY_SCHEMES;
const anyOf = (...names: SchemeName[]): SecurityRequirement[] => names.map((name) => ({ [name]: [] }));

export const DEVICE_SECURITY = anyOf('DeviceAuth', 'DeviceBasic');
export const FEED_SECURITY = anyOf('UserToken', 'DeviceAuth', 'DeviceBasic', 'AdminToken');
export const ADMIN_SECURITY = anyOf('AdminToken');
/** A user token alone, whose grants the route checks (`desired`). */
export const USER_TOKEN_SECURITY = anyOf('UserToken');
/** No credentials. */
export const PUBLIC: SecurityRequirement[] = [];
