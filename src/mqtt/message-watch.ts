import type { Aedes, AedesPublishPacket } from 'aedes';
import { MessageWatch } from '../messaging/port';

type Deliver = (packet: AedesPublishPacket, done: () => void) => void;

/**
 * Watches internal topics on the aedes instance itself (`aedes.subscribe`, not a client session): the watcher sees
 * every message the broker routes on those topics, from devices, REST and the admin API alike, and sends nothing.
 * One 'closed' listener for all watchers, so many open consoles never trip EventEmitter's listener warning.
 */
export function createAedesMessageWatch(aedes: Aedes): MessageWatch {
  const active = new Set<() => void>();
  aedes.once('closed', () => {
    for (const end of [...active]) end();
    active.clear();
  });

  return {
    async watch(filter, onMessage, onEnd) {
      if (aedes.closed) {
        onEnd();
        return async () => {};
      }
      /** True once watching ended, by stop or by the broker closing: nothing more is delivered. */
      let ended = false;
      // mqemitter waits for every listener's `done` before it completes the publish: always call it, at once.
      const deliver: Deliver = (packet, done) => {
        try {
          if (!ended) onMessage(packet.topic, Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload));
        } finally {
          done();
        }
      };
      const end = () => {
        if (ended) return;
        ended = true;
        onEnd();
      };
      await new Promise<void>((resolve) => aedes.subscribe(filter, deliver, resolve));
      active.add(end);
      // The broker may have begun closing while the subscription was made; its 'closed' event may be past too.
      if (aedes.closed) end();
      let stopping: Promise<void> | undefined;
      return () =>
        (stopping ??= (async () => {
          ended = true;
          active.delete(end);
          // After close, mqemitter takes no more removals; nothing is delivered any more anyway.
          if (!aedes.closed) await new Promise<void>((resolve) => aedes.unsubscribe(filter, deliver, resolve));
        })());
    },
  };
}
