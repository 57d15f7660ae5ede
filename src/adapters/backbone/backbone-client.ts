import type { IClientOptions } from 'mqtt';

/** The connection timings of a node's backbone connections (mqtt-backbone.ts BACKBONE_DEFAULTS). */
export interface BackboneConnectTimings {
  keepaliveSeconds: number;
  reconnectPeriodMs: number;
  connectTimeoutMs: number;
}

/** What both of a node's backbone connections (mqtt-backbone.ts, mqtt-share-distribution.ts) connect with. */
export function backboneClientOptions(username: string | undefined, password: string | undefined, timings: BackboneConnectTimings): IClientOptions {
  return {
    manualConnect: true,
    protocolVersion: 5,
    username,
    password,
    keepalive: timings.keepaliveSeconds,
    reconnectPeriod: timings.reconnectPeriodMs,
    connectTimeout: timings.connectTimeoutMs,
    // Wrong credentials may be fixed on the broker's side: keep trying, /readyz says why in the log meanwhile.
    reconnectOnConnackError: true,
    // The node subscribes itself on every connection (join(), the shares), to know when it is ready.
    resubscribe: false,
    queueQoSZero: false,
  };
}
