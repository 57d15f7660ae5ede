import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate, parse, type Packet } from 'coap-packet';
import { authOf, coapAs, sendDatagram } from '../../helpers/coap';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

/**
 * The codes of the answers among `replies`: an empty ACK is the transport's acknowledgement that a busy server sends
 * before a separate response (RFC 7252 §5.2.2), not an answer.
 */
const answerCodes = (replies: Buffer[]) => replies.map((r) => parse(r)).filter((p) => !(p.ack && p.code === '0.00')).map((p) => p.code);

/** A Block1 option value (RFC 7959 §2.2): NUM, M and SZX packed into up to three bytes. */
function block1(num: number, more: boolean, szx: number): Buffer {
  const value = (num << 4) | (more ? 8 : 0) | szx;
  const bytes = value < 0x100 ? 1 : value < 0x10000 ? 2 : 3;
  const option = Buffer.alloc(bytes);
  option.writeUIntBE(value, 0, bytes);
  return option;
}

describe('CoAP robustness', () => {
  let stack: Stack;
  let device: TestDevice;
  before(async () => {
    stack = await startStack();
    device = await aDevice(stack);
  });
  after(() => stack.stop());

  /** A PUT /shadow/data as raw bytes, with its own token, for options the node-coap client would not send. */
  const rawPut = (options: Packet['options'], payload = Buffer.from('{data:{a:1}}')): Packet => ({
    code: '0.03',
    confirmable: true,
    messageId: 4242,
    token: randomBytes(4),
    options: [
      { name: 'Uri-Path', value: Buffer.from('shadow') },
      { name: 'Uri-Path', value: Buffer.from('data') },
      { name: 'Uri-Query', value: Buffer.from(authOf(device)) },
      ...(options ?? []),
    ],
    payload,
  });

  const hex = (packet: Packet) => packet.options!.at(-1)!.value.toString('hex');

  const stillServes = async () => {
    const res = await coapAs(stack.coapUrl, device)('GET', '/shadow/data');
    expect(res.code).to.equal('2.05');
  };

  it('ignores datagrams that are not CoAP, answering none of them, and keeps serving', async () => {
    const garbage = [
      Buffer.alloc(0),
      Buffer.from('hello'),
      Buffer.from('GET /shadow/data HTTP/1.1\r\n\r\n'),
      Buffer.of(0x00, 0x01, 0x02, 0x03), // version 0
      Buffer.of(0x80, 0x01, 0x00, 0x01), // version 2
      Buffer.of(0x4f, 0x01, 0x00, 0x01, 1, 2, 3), // token length 15, and too short for it
      Buffer.of(0x40, 0x01, 0x00, 0x01, 0xf0), // option delta 15 without a payload marker
      Buffer.of(0x40, 0x01, 0x00, 0x01, 0xbd), // extended option length missing
      randomBytes(60_000),
    ];

    for (const datagram of garbage) {
      expect(await sendDatagram(stack.coapUrl, datagram), datagram.subarray(0, 16).toString('hex')).to.deep.equal([]);
    }

    await stillServes();
  });

  it('survives a storm of random datagrams', async () => {
    const socket = createSocket('udp4');
    const port = Number(new URL(stack.coapUrl).port);
    try {
      for (let i = 0; i < 500; i++) {
        const datagram = randomBytes(Math.floor(Math.random() * 300));
        // Half of them look like CoAP requests: version 1, a request code, random everything else.
        if (i % 2 === 0 && datagram.length >= 4) {
          datagram[0] = 0x40 | (datagram[0] & 0x37);
          datagram[1] = 1 + (datagram[1] % 4);
        }
        await new Promise<void>((resolve) => socket.send(datagram, port, '127.0.0.1', () => resolve()));
      }
    } finally {
      socket.close();
    }
    // The storm can fill the socket's receive buffer, and UDP drops what does not fit; let it drain first.
    await new Promise((r) => setTimeout(r, 200));

    await stillServes();
  });

  it('ignores a CoAP response sent to it', async () => {
    const response = generate({ code: '2.05', messageId: 7, token: randomBytes(2), payload: Buffer.from('{}') });

    expect(await sendDatagram(stack.coapUrl, response)).to.deep.equal([]);
    await stillServes();
  });

  it('answers 4.13 to a block claiming to be the millionth of an upload, without building the body', async () => {
    const rssBefore = process.memoryUsage().rss;
    const packet = rawPut([{ name: 'Block1', value: block1(1_048_575, false, 6) }]);

    const replies = await sendDatagram(stack.coapUrl, generate(packet));

    expect(replies).to.have.lengthOf(1);
    const reply = parse(replies[0]);
    expect(reply.code).to.equal('4.13');
    expect(reply.token.equals(packet.token!)).to.equal(true);
    expect(JSON.parse(reply.payload.toString())).to.include({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    // node-coap alone would allocate the whole claimed body: a gigabyte.
    expect(process.memoryUsage().rss - rssBefore).to.be.below(256 * 1024 * 1024);
    await stillServes();
  });

  it('answers the sender with 4.00 and a JSON error body when a block-wise upload is broken', async () => {
    const broken = [
      rawPut([{ name: 'Block1', value: Buffer.alloc(0) }]), // node-coap cannot read an empty Block1
      rawPut([{ name: 'Block1', value: Buffer.of(1, 2, 3, 4) }]), // longer than three bytes
      rawPut([{ name: 'Block1', value: block1(3, false, 2) }]), // the last block of an upload never started
    ];
    for (const packet of broken) {
      const replies = await sendDatagram(stack.coapUrl, generate(packet));

      expect(replies, hex(packet)).to.have.length.within(1, 2);
      // node-coap also sends the empty ACK it had scheduled for the request; a client ignores a second ACK.
      for (const extra of replies.slice(1)) expect(parse(extra).code).to.equal('0.00');
      const reply = parse(replies[0]);
      expect(reply.code).to.equal('4.00');
      expect(reply.ack).to.equal(true);
      expect(reply.messageId).to.equal(packet.messageId);
      expect(reply.token.equals(packet.token!)).to.equal(true);
      expect(JSON.parse(reply.payload.toString())).to.include({ status: 400, code: 'INVALID_BODY' });
    }
    await stillServes();
  });

  it('answers a GET with Observe as a plain GET, registering no observer (RFC 7641 §4.1)', async () => {
    const packet = rawPut([{ name: 'Observe', value: Buffer.alloc(0) }]);
    packet.code = '0.01';

    const replies = await sendDatagram(stack.coapUrl, generate(packet));

    expect(replies).to.have.lengthOf(1);
    const reply = parse(replies[0]);
    expect(reply.code).to.equal('2.05');
    expect(reply.options.map((o) => o.name)).to.not.include('Observe');
    expect(JSON.parse(reply.payload.toString()).deviceid).to.equal(device.deviceid);
  });

  it('answers a PUT with Observe as a plain PUT, with its own code', async () => {
    const packet = rawPut([{ name: 'Observe', value: Buffer.alloc(0) }]);

    const replies = await sendDatagram(stack.coapUrl, generate(packet), 1000);

    expect(answerCodes(replies)).to.deep.equal(['2.04']);
  });

  it('answers a retransmitted request once more from its cache, applying the write once', async () => {
    const packet = rawPut([], Buffer.from('{data:{counter:1}}'));
    const before = (await coapAs(stack.coapUrl, device)('GET', '/shadow/data')).body.rev;
    const socket = createSocket('udp4');
    const port = Number(new URL(stack.coapUrl).port);
    const replies: Buffer[] = [];
    socket.on('message', (msg) => replies.push(msg));
    try {
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve) => socket.send(generate(packet), port, '127.0.0.1', () => resolve()));
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      socket.close();
    }

    expect(answerCodes(replies)).to.deep.equal(['2.04', '2.04', '2.04']);
    expect((await coapAs(stack.coapUrl, device)('GET', '/shadow/data')).body.rev).to.equal(before + 1);
  });
});

describe('the CoAP port', () => {
  it('refuses to start a second service on a UDP port in use, saying which', async () => {
    const first = await startStack();
    const dataDir = mkdtempSync(join(tmpdir(), 'openpie-coap-port-'));
    try {
      const port = Number(new URL(first.coapUrl).port);

      let error: unknown;
      await startStack({ dataDir, env: { COAP_PORT: String(port) } }).catch((err: unknown) => (error = err));

      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message).to.equal(`CoAP (COAP_PORT) port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await first.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('is free again once the service has stopped', async () => {
    const stack = await startStack();
    const port = Number(new URL(stack.coapUrl).port);
    await stack.stop();

    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, '127.0.0.1', () => resolve());
    });
    socket.close();
  });
});
