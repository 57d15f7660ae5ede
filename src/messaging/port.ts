/** Carries messages to device connections, wherever they are. Topics are internal (see topics.ts). */
export interface MessageBus {
  publish(internalTopic: string, payload: Buffer): Promise<void>;
}
