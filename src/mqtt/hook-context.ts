import type { Client } from 'aedes';
import type { Logger } from 'pino';
import { ConnectionLog } from '../connections/connection-log';
import { Admission } from '../devices/admission';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { Presence } from '../devices/presence';
import { MessageBus, MessageRelay, ShareDistribution } from '../messaging/port';
import { ServiceMetrics } from '../metrics/service-metrics';
import { SessionStore } from '../sessions/port';
import { SessionLimits } from '../sessions/settings';
import { PushService } from '../push/service';
import { ShadowService } from '../shadows/service';
import { DesiredService } from '../desired/service';
import { ConnectionInspection } from './connection-inspection';
import { ApplicationConnection } from './flow-channel/application-connection';
import { MessagePipeline } from './message-pipeline';
import { ShadowTopics } from './shadow-topics';

/** What the broker's hooks are built from (see broker.ts). */
export interface AedesBrokerDeps {
  devices: DeviceStore;
  presence: Presence;
  shadowService: ShadowService;
  /** Desired state (issue 25 §2): `@shadow/desired/get` and the delta a device gets as it starts listening; none in some tests. */
  desired?: DesiredService;
  /** `@push` (push/service.ts). */
  push: PushService;
  logger: Logger;
  /** The one way in for devices (devices/admission.ts): credentials, the rate limit, the messages quota. */
  admission: Admission;
  /** Carries accepted messages to the other nodes (the MQTT backbone); a single node has none. */
  relay?: MessageRelay;
  /** MQTT 5 shared subscriptions across the nodes (the MQTT backbone); without it a share spans this node. */
  shares?: ShareDistribution;
  /** Where sessions and retained messages live; `shared` when every node of a cluster reads the same one (Redis). */
  sessions: { store: SessionStore; shared: boolean; settings: SessionLimits };
  /** NODE_ID: the aedes instance is named `{nodeId}:{boot}`, so a restart knows its earlier runs' wills. */
  nodeId: string;
  /** This node's connection history (connections/): the broker records connects, disconnects and refusals in it. */
  connectionLog: ConnectionLog;
  metrics: Pick<ServiceMetrics, 'mqttQueueDropped' | 'observeQueuedMessages' | 'mqttSessionStoreFailures' | 'applicationConnections'>;
}

/** The state the hooks share: the device each connection authenticated as, which is also its scope. */
export interface HookContext extends AedesBrokerDeps {
  readonly scopes: WeakMap<Client, Device>;
  /** Application connections (NETPIE's Flow Channel: flow-channel/): never in `scopes`, never a device. */
  readonly apps: WeakMap<Client, ApplicationConnection>;
  /** Connections whose CONNECT had an empty ClientID: authenticate.ts gives them the id of the device their token names. */
  readonly withoutClientId: WeakSet<Client>;
  /** This node's connections. */
  readonly bus: MessageBus;
  readonly shadowTopics: ShadowTopics;
  /** Every accepted message's way in (message-pipeline.ts). */
  readonly pipeline: MessagePipeline;
  /** `sessions.store` itself, for the QoS 2 state of the publish hook. */
  readonly store: SessionStore;
  /** Device publishes the hook has taken and not yet answered; a shutdown waits for them (broker.ts `drain`). */
  readonly publishesInFlight: Set<Promise<unknown>>;
  /** Feeds the connection inspector (connection-inspection.ts). */
  readonly connections: ConnectionInspection;
}
