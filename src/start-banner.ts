import { adminLoginHint } from './config/admin-token';
import { Config } from './config/config';
import { reachableBaseUrl } from './demo/demo-mode';
import { RunningServer } from './server';

/**
 * What `npm start` prints once the service listens (issue 13 §3): where a person goes next. On stdout as plain text,
 * beside the JSON log (the generated admin token goes to stderr instead, config/admin-token.ts).
 */
export function startBanner(config: Config, server: Pick<RunningServer, 'httpPort' | 'mqttPort'>): string {
  const http = reachableBaseUrl(config.host, server.httpPort);
  const mqtt = reachableBaseUrl(config.mqttHost, server.mqttPort).replace(/^http:/, 'mqtt:');
  const login = adminLoginHint(config.adminToken, config.dataDir);
  return [
    'openpie is ready:',
    `  Front door:  ${http}/`,
    `  Console:     ${http}/console   (log in with the admin token: ${login})`,
    `  Explorer:    ${http}/trial`,
    `  OpenAPI:     ${http}/openapi.json`,
    `  Docs:        ${http}/docs/`,
    `  MQTT:        ${mqtt}   (ClientID = deviceid, username = token)`,
    '',
  ].join('\n');
}
