import type { Aedes, Client } from 'aedes';
import { ServiceMetrics } from '../metrics/service-metrics';

/**
 * Observes the broker from outside, through its events and its forward hook:
 * - connections: clients between `clientReady` and `clientDisconnect`, counted by client object, as presence does
 *   (a client that hangs up right after CONNECT can be reported gone before it is reported ready);
 * - messages in: `publish` events that carry a client, i.e. PUBLISH packets a client sent and the broker accepted
 *   (the service's own publishes, REST messages and $SYS, have none);
 * - messages out: packets `authorizeForward` lets through to a client, counted as aedes writes them.
 * Messages are counted as plain numbers that the counters take when scraped (service-metrics.ts `mqttTraffic`).
 */
export function observeAedes(
  aedes: Aedes,
  metrics: Pick<ServiceMetrics, 'mqttConnections' | 'mqttTraffic'>,
): void {
  const open = new WeakSet<Client>();
  aedes.on('clientReady', (client) => {
    if (client.closed || open.has(client)) return;
    open.add(client);
    metrics.mqttConnections.inc();
  });
  aedes.on('clientDisconnect', (client) => {
    if (open.delete(client)) metrics.mqttConnections.dec();
  });
  aedes.on('publish', (_packet, client) => {
    if (client) metrics.mqttTraffic.in++;
  });

  // aedes calls this.authorizeForward(client, packet) for every delivery; the broker's own rule stays in charge.
  const authorizeForward: Aedes['authorizeForward'] = aedes.authorizeForward.bind(aedes);
  aedes.authorizeForward = (client, packet) => {
    const forwarded = authorizeForward(client, packet);
    if (forwarded) metrics.mqttTraffic.out++;
    return forwarded;
  };
}
