import { DEMO_PROJECT, DemoDevice } from './demo-devices';

export interface BannerFacts {
  /** Where people reach the service, e.g. `http://localhost:8080`. */
  baseUrl: string;
  sensor: DemoDevice;
  lamp: DemoDevice;
  userToken: { token: string; expires: number };
  intervalMs: number;
  /** How to get the admin token, e.g. `cat ./data/admin-token`. */
  consoleLogin: string;
}

const deviceLines = (d: DemoDevice, what: string) => [
  `${d.alias}: ${what}`,
  `  deviceid (ClientID): ${d.deviceid}`,
  `  token:               ${d.token}`,
  `  secret:              ${d.secret}`,
  `  DeviceAuth value:    Device ${d.deviceid}:${d.token}`,
];

/** The one block the demo prints on stdout: what to paste into /trial, and two calls to try at once. */
export function demoBanner({ baseUrl, sensor, lamp, userToken, intervalMs, consoleLogin }: BannerFacts): string {
  const query = JSON.stringify({
    start_relative: { value: 24, unit: 'hours' },
    metrics: [{ name: sensor.deviceid, tags: { attr: ['temp'] }, aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' } }] }],
  });
  const rule = '='.repeat(100);
  return [
    rule,
    `openpie demo: project "${DEMO_PROJECT.projectid}", group "${DEMO_PROJECT.groupid}"`,
    `Trial explorer: ${baseUrl}/trial`,
    '  Authorize > DeviceAuth: paste a device\'s "Device <deviceid>:<token>" value below',
    '  Authorize > UserToken:  paste the user token alone (no "Bearer")',
    `Web console: ${baseUrl}/console`,
    `  log in with the admin token: ${consoleLogin}`,
    `  pick project "${DEMO_PROJECT.projectid}": demo-sensor is online while it sends; open it for its shadow and its last 24 h`,
    '',
    ...deviceLines(sensor, `sends temp and humid every ${intervalMs / 1000} s over MQTT; the last 24 h are recorded`),
    '',
    ...deviceLines(lamp, 'a device of the same group'),
    '',
    `User token of project "${DEMO_PROJECT.projectid}" (data-store API; send it as Authorization: Bearer <token>),`,
    `valid until ${new Date(userToken.expires).toISOString()}; every demo start prints a new one:`,
    `  ${userToken.token}`,
    '',
    'Try:',
    `  curl -s ${baseUrl}/v2/device/shadow/data -H 'Authorization: Device ${sensor.deviceid}:${sensor.token}'`,
    `  curl -s -X POST ${baseUrl}/v2/feed/api/v1/datapoints/query -H 'Authorization: Bearer ${userToken.token}' \\`,
    `    -H 'Content-Type: application/json' -d '${query}'`,
    rule,
    '',
  ].join('\n');
}
