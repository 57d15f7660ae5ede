import { expect } from 'chai';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { Writable } from 'node:stream';
import { coalesceWrites } from '../../../src/mqtt/coalesced-writes';

/** A connected pair of real TCP sockets on loopback: `server` is the broker's side. */
async function socketPair(): Promise<{ server: Socket; client: Socket; listener: Server }> {
  const listener = createServer();
  const accepted = new Promise<Socket>((resolve) => listener.once('connection', resolve));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const client = new Socket();
  await new Promise<void>((resolve) => client.connect((listener.address() as AddressInfo).port, '127.0.0.1', resolve));
  return { server: await accepted, client, listener };
}

/** Counts what reaches the kernel: each `_write` or `_writev` of the socket is one send. */
function countSends(socket: Socket): { sends: number } {
  const counted = { sends: 0 };
  const internals = socket as unknown as { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
  const [write, writev] = [internals._write, internals._writev];
  internals._write = function (...args) {
    counted.sends++;
    return write.apply(this, args);
  };
  internals._writev = function (...args) {
    counted.sends++;
    return writev.apply(this, args);
  };
  return counted;
}

const received = (socket: Socket, bytes: number) => new Promise<Buffer>((resolve) => {
  const chunks: Buffer[] = [];
  let length = 0;
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= bytes) resolve(Buffer.concat(chunks));
  });
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('MQTT connections: what one turn of the event loop writes leaves in one send (issue 26 §1)', () => {
  let pair: Awaited<ReturnType<typeof socketPair>>;
  beforeEach(async () => {
    pair = await socketPair();
  });
  afterEach(() => {
    pair.client.destroy();
    pair.server.destroy();
    pair.listener.close();
  });

  it('sends the packets written in one turn together, in the order written', async () => {
    const sends = countSends(pair.server);
    const socket = coalesceWrites(pair.server);
    const arrived = received(pair.client, 9);

    socket.write(Buffer.from('one'));
    socket.write(Buffer.from('two'));
    socket.write(Buffer.from('six'));

    expect((await arrived).toString()).to.equal('onetwosix');
    expect(sends.sends).to.equal(1);
  });

  it('holds nothing past its turn: a lone write is sent before the next turn ends, with no later write to push it', async () => {
    const sends = countSends(pair.server);
    const socket = coalesceWrites(pair.server);
    const arrived = received(pair.client, 4);

    socket.write(Buffer.from('lone'));
    await nextTurn();

    expect(sends.sends).to.equal(1);
    expect((await arrived).toString()).to.equal('lone');
  });

  it('sends what the turn held before the connection is destroyed (aedes closes connections so, after a refusal)', async () => {
    const socket = coalesceWrites(pair.server);
    const arrived = received(pair.client, 7);

    socket.write(Buffer.from('connack'));
    socket.destroy();

    expect((await arrived).toString()).to.equal('connack');
  });

  it('leaves a stream that writes one chunk at a time (no writev, as the WebSocket stream) as it is', () => {
    const oneByOne = new Writable({ write: (_chunk, _encoding, done) => done() });
    const write = oneByOne.write;

    expect(coalesceWrites(oneByOne).write).to.equal(write);
  });

  it('starts a new send in each turn, keeping the order across turns', async () => {
    const sends = countSends(pair.server);
    const socket = coalesceWrites(pair.server);
    const arrived = received(pair.client, 6);

    socket.write(Buffer.from('a'));
    socket.write(Buffer.from('b'));
    await nextTurn();
    socket.write(Buffer.from('c'));
    await nextTurn();
    socket.write(Buffer.from('d'));
    socket.write(Buffer.from('e'));
    socket.end(Buffer.from('f'));

    expect((await arrived).toString()).to.equal('abcdef');
    expect(sends.sends).to.equal(3);
  });
});
