import { ReadinessReport } from '../../health/readiness';
import { escapeHtml, renderPage } from './page-layout';

/** What the composition knows about this node and nothing the HTTP app holds otherwise (compose/service.ts). */
export interface ServiceFacts {
  /** NODE_ID: this node's name in a cluster. */
  nodeId: string;
  /** STORE: where the registry, shadows and sessions live (`sqlite`, `cassandra`). */
  store: string;
  /** TIMESERIES: the time-series engine (`embedded`, `kairosdb`). */
  timeseries: string;
  /** Every bound listener, as a device or person reaches it: `MQTT over TLS` on 8883, `CoAP (UDP)` on 5683. */
  listeners: readonly { name: string; port: number }[];
}

export interface LandingFacts {
  version: string;
  /** Undefined when the composition does not pass them (then the page says less, never something false). */
  service?: ServiceFacts;
  listeners: readonly { name: string; port: number }[];
  health: ReadinessReport;
  /** METRICS_TOKEN is set: /metrics wants it (the page never shows it). */
  metricsNeedToken: boolean;
}

const link = (href: string, label: string, what: string) => `<li><a href="${href}">${escapeHtml(label)}</a>: ${what}</li>`;

function healthCard(health: ReadinessReport): string {
  const rows = Object.entries(health.checks).map(([name, r]) =>
    `<dt>${escapeHtml(name)}</dt><dd><span class="status ${r.status}">${r.status === 'ok' ? 'ok' : 'failing'}</span> <span class="hint">${r.ms} ms</span></dd>`);
  return [
    '<section class="card" aria-labelledby="health-heading">',
    `<h2 id="health-heading">Health <span id="health" class="status ${health.ready ? 'ok' : 'fail'}">${health.ready ? 'ready' : 'not ready'}</span></h2>`,
    rows.length > 0 ? `<dl class="facts">${rows.join('')}</dl>` : '<p class="hint">No readiness checks.</p>',
    '<p class="hint">The checks of <a href="/readyz">/readyz</a>, run for this page; <a href="/healthz">/healthz</a> answers while the process runs.</p>',
    '</section>',
  ].join('\n');
}

function runningCard({ version, service, listeners }: LandingFacts): string {
  const facts: [string, string][] = [['Version', version]];
  if (service) facts.push(['Node', service.nodeId], ['Store', service.store], ['Time series', service.timeseries]);
  const listenerRows = listeners.map((l) => `<dt>${escapeHtml(l.name)}</dt><dd><code>${l.port}</code></dd>`);
  return [
    '<section class="card" aria-labelledby="running-heading">',
    '<h2 id="running-heading">Running</h2>',
    `<dl class="facts" id="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`,
    '<h3>Listeners</h3>',
    `<dl class="facts" id="listeners">${listenerRows.join('')}</dl>`,
    '<p class="hint">Devices connect to this host: ClientID = deviceid, username = token.</p>',
    '</section>',
  ].join('\n');
}

/** The front door for a browser (issue 24 §4): what runs here, whether it is healthy, and where to go next. */
export function renderLandingPage(facts: LandingFacts): string {
  const metrics = facts.metricsNeedToken
    ? 'Prometheus metrics; send <code>Authorization: Bearer &lt;METRICS_TOKEN&gt;</code>'
    : 'Prometheus metrics (open: METRICS_TOKEN is not set)';
  return renderPage('openpie', [
    '<h1>openpie</h1>',
    '<p class="lead">A NETPIE-2020-compatible device messaging, shadow and time-series service: REST, MQTT 3.1.1 and 5, CoAP.</p>',
    '<div class="cards">',
    runningCard(facts),
    healthCard(facts.health),
    '</div>',
    '<h2>Where to go</h2>',
    '<ul class="links">',
    link('/console', 'Web console', 'devices, shadows, history, group messages (log in with the admin token)'),
    link('/docs/', 'Documentation', 'the README and the reference'),
    link('/trial', 'Trial explorer', 'try every call of the HTTP API from the browser'),
    link('/openapi.json', 'OpenAPI document', 'the HTTP API, for code generators and tools'),
    link('/metrics', '/metrics', metrics),
    '</ul>',
    '<p>Device API: <code>/v2/device</code>. Data store (KairosDB format): <code>/v2/feed/api/v1</code>. Admin API: <code>/v2/admin</code>.</p>',
  ].join('\n'));
}
