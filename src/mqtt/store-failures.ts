import type { Client } from 'aedes';
import type { Logger } from 'pino';
import { AppError } from '../core/errors';
import { ServiceMetrics } from '../metrics/service-metrics';
import { StoreFailureHandler } from './guarded-persistence';
import { REASON } from './v5/reason-codes';

/**
 * What a failed session-store call costs (guarded-persistence.ts): one warning, one count in
 * `openpie_mqtt_session_store_failures_total`, and the end of the one connection it concerns: MQTT 5 gets a DISCONNECT
 * saying why [MQTT-3.14.2-1] (0x89 Server busy while the store is unreachable, 0x83 otherwise), 3.1.1 a closed
 * socket [MQTT-4.8.0-1]. The device reconnects and resumes its session; no other connection notices. Resolves once
 * that connection is closed, so that aedes, which closes a client whose call failed by destroying its socket, cannot
 * cut the DISCONNECT short.
 */
export function storeFailures(logger: Logger, metrics: Pick<ServiceMetrics, 'mqttSessionStoreFailures'>): StoreFailureHandler {
  const ending = new WeakMap<Client, Promise<void>>();
  return (call, client, err) => {
    metrics.mqttSessionStoreFailures.inc({ call });
    const message = err instanceof Error ? err.message : String(err);
    logger.warn({ deviceid: client?.id, call, err: message }, 'mqtt session store call failed');
    if (!client) return Promise.resolve();
    let closed = ending.get(client);
    if (!closed) {
      const unavailable = err instanceof AppError && err.code === 'BACKEND_UNAVAILABLE';
      const reasonString = unavailable ? 'the session store is unavailable; reconnect later' : 'the session store failed; reconnect';
      const reasonCode = unavailable ? REASON.SERVER_BUSY : REASON.IMPLEMENTATION_SPECIFIC_ERROR;
      closed = new Promise<void>((resolve) => client.disconnect({ reasonCode, properties: { reasonString } }, () => resolve()));
      ending.set(client, closed);
    }
    return closed;
  };
}
