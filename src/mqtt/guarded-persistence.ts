import type { Client } from 'aedes';
import { Readable } from 'node:stream';
import { isNoSuchPacket } from '../sessions/no-such-packet';
import { SessionClient, SessionStore } from '../sessions/port';

/**
 * Called once per failed store call: log it, count it, and end the connection it concerns (store-failures.ts).
 * Resolves once that connection is closed; aedes hears of the failure only then.
 */
export type StoreFailureHandler = (call: string, client: Client | undefined, err: unknown) => Promise<void>;

/**
 * How aedes 2.0.0-beta.1 reads each call's outcome, at its call sites (lib/handlers/*.js, lib/client.js, aedes.js):
 * - `lookup`: a rejection means "not stored" and aedes goes on (incomingGetPacket: a new QoS 2 packet id, or a PUBREL
 *   of an id it does not hold, answered PUBCOMP [MQTT-4.3.3-2]);
 * - `settle`: aedes chains it with `.finally` (pubrel.js `pubrelDelete`, connect.js `storeWill`), so any rejection is
 *   unhandled and would end the process: it must always resolve;
 * - `fail`: aedes passes a rejection on to the packet's callback and closes that client, or emits it on the broker.
 */
const LOOKUP = ['incomingGetPacket'] as const;
const SETTLE = ['incomingDelPacket', 'delWill', 'cleanIncoming'] as const;
const FAIL = [
  'storeRetained',
  'addSubscriptions',
  'removeSubscriptions',
  'subscriptionsByClient',
  'subscriptionsByTopic',
  'cleanSubscriptions',
  'outgoingEnqueue',
  'outgoingEnqueueCombi',
  'outgoingClearMessageId',
  'incomingStorePacket',
  'putWill',
  'getWill',
] as const;
const STREAMS = ['outgoingStream', 'createRetainedStream', 'createRetainedStreamCombi', 'streamWill', 'getClientList'] as const;

type AnyCall = (...args: unknown[]) => unknown;

/**
 * The session store as aedes calls it (issue 17): every call answers through its promise (or stream) in the form
 * aedes expects at that call site, and none throws. A missing packet keeps the meaning aedes gives it; any other
 * failure goes to `failed` (logged, counted, the connection it concerns closed), so a store fault or a hostile
 * packet sequence ends at most one connection, never the process. `persistence` is what aedes would otherwise get
 * (session-persistence.ts); `setup` passes through unchanged (aedes requires it to be an `async function`).
 */
export function guardedPersistence(persistence: SessionStore, failed: StoreFailureHandler): SessionStore {
  const guarded: SessionStore = Object.create(persistence);
  const call = (name: string, args: unknown[]): Promise<unknown> => {
    try {
      return Promise.resolve((persistence[name as keyof SessionStore] as AnyCall).apply(persistence, args));
    } catch (err) {
      return Promise.reject(err);
    }
  };
  const clientOf = (args: unknown[]) => liveClient(args[0]);
  const define = (name: string, value: AnyCall) => Object.defineProperty(guarded, name, { value, enumerable: true });

  for (const name of LOOKUP) {
    define(name, (...args) =>
      call(name, args).catch(async (err: unknown) => {
        if (!isNoSuchPacket(err)) await failed(name, clientOf(args), err);
        throw err;
      }),
    );
  }
  for (const name of SETTLE) {
    define(name, (...args) =>
      call(name, args).catch(async (err: unknown) => {
        if (!isNoSuchPacket(err)) await failed(name, clientOf(args), err);
        return undefined;
      }),
    );
  }
  for (const name of FAIL) {
    define(name, (...args) =>
      call(name, args).catch(async (err: unknown) => {
        await failed(name, clientOf(args), err);
        throw err;
      }),
    );
  }
  // A PUBREC of a packet id the session does not hold: the PUBREL goes anyway and the client's PUBCOMP clears nothing,
  // as for a retransmitted PUBREC whose PUBREL was already stored [MQTT-4.3.3-1]. Any other miss stays a rejection.
  define('outgoingUpdate', (...args) =>
    call('outgoingUpdate', args).catch(async (err: unknown) => {
      if (isNoSuchPacket(err) && (args[1] as { cmd?: string }).cmd === 'pubrel') return undefined;
      if (!isNoSuchPacket(err)) await failed('outgoingUpdate', clientOf(args), err);
      throw err;
    }),
  );
  for (const name of STREAMS) {
    define(name, (...args) => {
      let stream: Readable;
      try {
        stream = (persistence[name] as AnyCall).apply(persistence, args) as Readable;
      } catch (err) {
        stream = new Readable({ objectMode: true, read() {} });
        process.nextTick(() => stream.destroy(err as Error));
      }
      stream.once('error', (err) => void failed(name, clientOf(args), err));
      return stream;
    });
  }
  return guarded;
}

/** aedes passes its Client to most calls, a bare `{ id, brokerId }` to some (wills): only a live Client is closed. */
function liveClient(arg: unknown): Client | undefined {
  const client = arg as (SessionClient & Partial<Pick<Client, 'close' | 'closed'>>) | undefined;
  return client && typeof client.close === 'function' && !client.closed ? (client as Client) : undefined;
}
