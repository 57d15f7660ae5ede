/**
 * The one "not found" of a session store: aedes reads a rejection of `incomingGetPacket` as "this QoS 2 packet id is
 * new" (and a PUBREL as one it never stored), and aedes-persistence's reference rejects `outgoingUpdate` of a packet
 * it does not hold. Every adapter rejects with this error for those cases and for nothing else, so the broker can tell
 * a missing packet (normal under retransmission and take-overs) from a store that failed (mqtt/guarded-persistence.ts).
 */
export class NoSuchPacketError extends Error {
  constructor() {
    // aedes-persistence's own message, kept so that its abstract suite and aedes read it the same way.
    super('no such packet');
    this.name = 'NoSuchPacketError';
  }
}

export const isNoSuchPacket = (err: unknown): boolean => err instanceof Error && err.message === 'no such packet';
