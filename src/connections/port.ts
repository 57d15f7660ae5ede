import { LiveConnection, NodeConnections } from './codecs';

/** This node's live MQTT connections of a device (mqtt/connection-inspection.ts reads them off the broker). */
export interface LiveConnections {
  connectionsOf(deviceid: string): Promise<LiveConnection[]>;
}

/** The other nodes' parts of a device's connections (adapters/backbone/mqtt-connection-gathering.ts). */
export interface ConnectionGathering {
  /** Asks every other node; resolves with the answers in by the time bound, and the nodes that were still silent. */
  gather(deviceid: string): Promise<{ answers: NodeConnections[]; silent: string[] }>;
  /** How this node answers when another asks. */
  answerWith(answer: (deviceid: string) => Promise<NodeConnections>): void;
}
