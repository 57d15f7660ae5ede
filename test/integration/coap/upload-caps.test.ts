import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createSocket, Socket } from 'node:dgram';
import { generate, parse, type ParsedPacket } from 'coap-packet';
import { authOf } from '../../helpers/coap';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

/** A Block1 option value (RFC 7959 §2.2) for 1024-byte blocks (SZX 6). */
const block1 = (num: number, more: boolean) => {
  const value = (num << 4) | (more ? 8 : 0) | 6;
  const bytes = value < 0x100 ? 1 : value < 0x10000 ? 2 : 3;
  const option = Buffer.alloc(bytes);
  option.writeUIntBE(value, 0, bytes);
  return option;
};

/** One UDP client (one address and port) speaking raw CoAP: a request out, the reply with its message id back. */
class RawClient {
  private readonly socket: Socket = createSocket('udp4');
  private readonly waiting = new Map<number, (reply: ParsedPacket) => void>();
  private messageId = Math.floor(Math.random() * 30_000);

  constructor(private readonly port: number) {
    this.socket.on('message', (datagram) => {
      const reply = parse(datagram);
      this.waiting.get(reply.messageId)?.(reply);
    });
  }

  /** Block `num` of a PUT /shadow/batch; every block carries the request's `?auth=` when given (RFC 7959 §2.5). */
  sendBlock(token: Buffer, num: number, more: boolean, auth?: string): Promise<ParsedPacket> {
    const messageId = ++this.messageId % 65536;
    const datagram = generate({
      code: '0.03',
      confirmable: true,
      messageId,
      token,
      options: [
        { name: 'Uri-Path', value: Buffer.from('shadow') },
        { name: 'Uri-Path', value: Buffer.from('batch') },
        ...(auth === undefined ? [] : [{ name: 'Uri-Query' as const, value: Buffer.from(auth) }]),
        { name: 'Block1', value: block1(num, more) },
      ],
      payload: Buffer.alloc(more ? 1024 : 10, 0x20),
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to block ${num}`)), 5000);
      this.waiting.set(messageId, (reply) => {
        clearTimeout(timer);
        this.waiting.delete(messageId);
        resolve(reply);
      });
      this.socket.send(datagram, this.port, '127.0.0.1');
    });
  }

  close(): void {
    this.socket.close();
  }
}

const bodyOf = (reply: ParsedPacket) => JSON.parse(reply.payload.toString('utf8'));
const maxAgeOf = (reply: ParsedPacket) => reply.options.find((o) => o.name === 'Max-Age')?.value.readUIntBE(0, 1);

/**
 * Issue 10 §3: node-coap kept every unfinished block-wise upload of anyone, credentials unread, for 247 s (300 tokens
 * of 200 blocks held 110 MiB). A client now has COAP_UPLOADS_PER_CLIENT of them holding at most
 * COAP_UPLOAD_BYTES_PER_CLIENT, beyond which its blocks are answered 4.29 TOO_MANY_UPLOADS. Issue 20 §6: an upload
 * takes a place only once the credentials of its first block are checked.
 */
describe('CoAP: caps on unfinished block-wise uploads (issues 10 and 20)', function () {
  this.timeout(30_000);

  let stack: Stack;
  let client: RawClient;
  let device: TestDevice;
  let auth: string;
  beforeEach(async () => {
    stack = await startStack({ env: { COAP_UPLOADS_PER_CLIENT: '3', COAP_UPLOAD_BYTES_PER_CLIENT: '8192' } });
    client = new RawClient(stack.server.coapPort);
    device = await aDevice(stack);
    auth = authOf(device);
  });
  afterEach(async () => {
    client.close();
    await stack.stop();
  });

  it('refuses a client\'s upload beyond COAP_UPLOADS_PER_CLIENT with 4.29, and takes one again once another ends', async () => {
    const tokens = [0, 1, 2, 3].map(() => randomBytes(4));
    for (const token of tokens.slice(0, 3)) expect((await client.sendBlock(token, 0, true, auth)).code).to.equal('2.31');

    const refused = await client.sendBlock(tokens[3], 0, true, auth);

    expect(refused.code).to.equal('4.29');
    expect(bodyOf(refused)).to.include({ status: 429, code: 'TOO_MANY_UPLOADS' });
    expect(bodyOf(refused).message).to.include('COAP_UPLOADS_PER_CLIENT');
    expect(maxAgeOf(refused)).to.equal(5);

    // The last block ends an upload (the whole request is then served: blanks are no batch) and frees its place.
    expect((await client.sendBlock(tokens[0], 1, false, auth)).code).to.equal('4.00');
    expect((await client.sendBlock(tokens[3], 0, true, auth)).code).to.equal('2.31');
  });

  it('refuses the block that takes a client past COAP_UPLOAD_BYTES_PER_CLIENT, dropping its upload', async () => {
    const token = randomBytes(4);
    for (let num = 0; num < 8; num++) expect((await client.sendBlock(token, num, true, auth)).code, `block ${num}`).to.equal('2.31');

    const refused = await client.sendBlock(token, 8, true, auth);

    expect(refused.code).to.equal('4.29');
    expect(bodyOf(refused).message).to.include('COAP_UPLOAD_BYTES_PER_CLIENT');
    // Its place and its bytes are free: a new upload of 8 KiB goes through to the end.
    const next = randomBytes(4);
    for (let num = 0; num < 7; num++) expect((await client.sendBlock(next, num, true, auth)).code).to.equal('2.31');
    expect((await client.sendBlock(next, 7, false, auth)).code).to.equal('4.00');
  });

  it('answers the first block of a stranger\'s upload 4.01 and holds nothing of it, so a device behind the same address keeps its places', async () => {
    const wrong = `auth=${device.deviceid}:not-the-token`;
    // More uploads than the address has places (3), and fewer wrong tokens than the guessing limit counts (10 a pair).
    for (let i = 0; i < 4; i++) {
      const [missing, wrongToken, unknown] = [
        await client.sendBlock(randomBytes(4), 0, true),
        await client.sendBlock(randomBytes(4), 0, true, wrong),
        await client.sendBlock(randomBytes(4), 3, true, `auth=00000000-0000-4000-8000-000000000000:${'x'.repeat(32)}`),
      ];
      expect(missing.code).to.equal('4.01');
      expect(bodyOf(missing).code).to.equal('MISSING_CREDENTIALS');
      expect(wrongToken.code).to.equal('4.01');
      expect(unknown.code).to.equal('4.01');
    }

    // The same address (and port) with the device's credentials: all three places are there.
    for (let i = 0; i < 3; i++) expect((await client.sendBlock(randomBytes(4), 0, true, auth)).code).to.equal('2.31');
  });

  it('answers 4.13 with Size1 to a block past the limit whoever sends it, as docs/coap.md says (not 4.01)', async () => {
    // 1 MiB is the batch limit: block 1024 of 1024 bytes starts past it.
    const stranger = await client.sendBlock(randomBytes(4), 1024, true);
    const token = randomBytes(4);
    expect((await client.sendBlock(token, 0, true, auth)).code).to.equal('2.31');
    // A later block without the query (some clients send it with the first block only).
    const device = await client.sendBlock(token, 1024, true);

    for (const reply of [stranger, device]) {
      expect(reply.code).to.equal('4.13');
      expect(bodyOf(reply)).to.include({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
      expect(reply.options.find((o) => o.name === 'Size1')?.value.readUIntBE(0, 3)).to.equal(1024 * 1024);
    }
  });

  it('holds the flood of the report to the caps: 300 tokens of 200 blocks of a device', async () => {
    const rssBefore = process.memoryUsage().rss;
    let mostBlocksOfOneUpload = 0;
    for (let t = 0; t < 300; t++) {
      const token = randomBytes(8);
      let accepted = 0;
      for (let num = 0; num < 200; num++) {
        if ((await client.sendBlock(token, num, true, auth)).code !== '2.31') break;
        accepted++;
      }
      mostBlocksOfOneUpload = Math.max(mostBlocksOfOneUpload, accepted);
    }

    // Never more than the client's 8 KiB at once; each refused upload was dropped whole, so nothing is left held:
    // three new uploads fit again, the fourth does not.
    expect(mostBlocksOfOneUpload).to.equal(8);
    for (let i = 0; i < 3; i++) expect((await client.sendBlock(randomBytes(4), 0, true, auth)).code).to.equal('2.31');
    expect((await client.sendBlock(randomBytes(4), 0, true, auth)).code).to.equal('4.29');
    expect(process.memoryUsage().rss - rssBefore).to.be.below(32 * 1024 * 1024);
  });
});
