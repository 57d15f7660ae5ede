import { expect } from 'chai';
import { Readable } from 'node:stream';
import { guardedPersistence } from '../../src/mqtt/guarded-persistence';
import { NoSuchPacketError } from '../../src/sessions/no-such-packet';
import { SessionStore } from '../../src/sessions/port';

/** A store whose every call fails with `err` (fault injection), the way a store behind a cut network does. */
function failingStore(err: () => Error): SessionStore {
  return new Proxy({} as SessionStore, {
    get: (_, name) =>
      name === 'outgoingStream'
        ? () => {
            throw err();
          }
        : () => Promise.reject(err()),
  });
}

/** Something aedes would pass: a live Client (it has `close`) with an id. */
const client = { id: 'dev-1', closed: false, close() {} };

describe('the session store as aedes calls it (guarded-persistence)', () => {
  let failures: { call: string; clientId?: string }[];
  const record = async (call: string, c: { id: string } | undefined) => void failures.push({ call, clientId: c?.id });
  beforeEach(() => (failures = []));

  it('[MQTT-4.3.3-2] a PUBREL whose packet is already gone resolves (aedes chains it with .finally), and is no failure', async () => {
    const guarded = guardedPersistence(failingStore(() => new NoSuchPacketError()), record);

    await guarded.incomingDelPacket(client, { messageId: 7 });

    expect(failures).to.deep.equal([]);
  });

  it('a failing delete still resolves, and the failure is reported once with the connection it concerns', async () => {
    const guarded = guardedPersistence(failingStore(() => new Error('disk I/O error')), record);

    await guarded.incomingDelPacket(client, { messageId: 7 });
    await guarded.delWill(client);

    expect(failures).to.deep.equal([
      { call: 'incomingDelPacket', clientId: 'dev-1' },
      { call: 'delWill', clientId: 'dev-1' },
    ]);
  });

  it('[MQTT-4.3.3-2] a lookup that finds nothing rejects, as aedes expects for a new QoS 2 packet id, without a failure', async () => {
    const guarded = guardedPersistence(failingStore(() => new NoSuchPacketError()), record);

    const outcome = await guarded.incomingGetPacket(client, { messageId: 1 }).then(() => 'resolved', (err: Error) => err.message);

    expect(outcome).to.equal('no such packet');
    expect(failures).to.deep.equal([]);
  });

  it('a lookup that fails rejects and is reported, so the connection is closed rather than a duplicate published silently', async () => {
    const guarded = guardedPersistence(failingStore(() => new Error('connection reset')), record);

    const outcome = await guarded.incomingGetPacket(client, { messageId: 1 }).then(() => 'resolved', () => 'rejected');

    expect(outcome).to.equal('rejected');
    expect(failures).to.deep.equal([{ call: 'incomingGetPacket', clientId: 'dev-1' }]);
  });

  it('[MQTT-4.3.3-1] a PUBREC of a packet id the session does not hold lets the PUBREL go; a missing PUBLISH still rejects', async () => {
    const guarded = guardedPersistence(failingStore(() => new NoSuchPacketError()), record);

    await guarded.outgoingUpdate(client, { cmd: 'pubrel', messageId: 3 });
    const publish = await guarded.outgoingUpdate(client, { cmd: 'publish', messageId: 3 }).then(() => 'resolved', () => 'rejected');

    expect(publish).to.equal('rejected');
    expect(failures).to.deep.equal([]);
  });

  it('a store that throws instead of returning a stream gives aedes a stream that errors, never a throw', async () => {
    const guarded = guardedPersistence(failingStore(() => new Error('database is locked')), record);

    const stream = guarded.outgoingStream(client) as Readable;
    const error = await new Promise<Error>((resolve) => stream.on('error', resolve));

    expect(error.message).to.equal('database is locked');
    expect(failures).to.deep.equal([{ call: 'outgoingStream', clientId: 'dev-1' }]);
  });

  it('a call about a will names no live connection (aedes passes { id, brokerId }): reported without one', async () => {
    const guarded = guardedPersistence(failingStore(() => new Error('timeout')), record);

    await guarded.delWill({ id: 'dev-2', brokerId: 'node:1' });

    expect(failures).to.deep.equal([{ call: 'delWill', clientId: undefined }]);
  });
});
