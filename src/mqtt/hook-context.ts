import type { Client } from 'aedes';
import type { Logger } from 'pino';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { Presence } from '../devices/presence';
import { MessageBus, MessageRelay, ShareDistribution } from '../messaging/port';
import { ServiceMetrics } from '../metrics/service-metrics';
import { SessionSettings } from '../config/session-config';
import { SessionStore } from '../sessions/port';
import { PushService } from '../push/service';
import { ShadowService } from '../shadows/service';
import { MessagePipeline } from './message-pipeline';
import { MqttMessageQuota } from './message-quota';
import { MqttPublishLimit } from './publish-limit';
import { ShadowTopics } from './shadow-topics';

/** What the broker's hooks are built from (see broker.ts). */
export interface AedesBrokerDeps {
  devices: DeviceStore;
  presence: Presence;
  shadowService: ShadowService;
  /** `@push` (push/service.ts). */
  push: PushService;
  logger: Logger;
  /** The per-device rate limit of publishes; none when absent. */
  publishLimit?: MqttPublishLimit;
  /** The messages quota of each device's project (issue 5 §5); none when absent. */
  messageQuota?: MqttMessageQuota;
  /** Carries accepted messages to the other nodes (the MQTT backbone); a single node has none. */
  relay?: MessageRelay;
  /** MQTT 5 shared subscriptions across the nodes (the MQTT backbone); without it a share spans this node. */
  shares?: ShareDistribution;
  /** Where sessions and retained messages live; `shared` when every node of a cluster reads the same one (Redis). */
  sessions: { store: SessionStore; shared: boolean; settings: SessionSettings };
  /** NODE_ID: the aedes instance is named `{nodeId}:{boot}`, so a restart knows its earlier runs' wills. */
  nodeId: string;
  metrics: Pick<ServiceMetrics, 'mqttQueueDropped' | 'observeQueuedMessages' | 'mqttSessionStoreFailures'>;
}

/** The state the hooks share: the device each connection authenticated as, which is also its scope. */
export interface HookContext extends AedesBrokerDeps {
  readonly scopes: WeakMap<Client, Device>;
  /** Connections whose CONNECT had an empty ClientID: authenticate.ts gives them the id of the device their token names. */
  readonly withoutClientId: WeakSet<Client>;
  /** This node's connections; set once aedes exists, before any client can connect. */
  bus: MessageBus;
  shadowTopics: ShadowTopics;
  /** Every accepted message's way in (message-pipeline.ts). */
  pipeline: MessagePipeline;
  /** `sessions.store` itself, for the QoS 2 state of the publish hook. */
  store: SessionStore;
  /** Device publishes the hook has taken and not yet answered; a shutdown waits for them (broker.ts `drain`). */
  readonly publishesInFlight: Set<Promise<unknown>>;
}
