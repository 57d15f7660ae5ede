import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { connect, Socket } from 'node:net';
import { aGroup } from '../../helpers/devices';
import { connectDevice, endAll, nextMessage } from '../../helpers/mqtt';
import { closeOf, presenceBecomes } from '../../helpers/mqtt-expect';
import { startStack, Stack } from '../../helpers/stack';

/** Opens a plain TCP socket to the broker, writes `bytes`, and resolves with the socket once they are written. */
function sendBytes(port: number, bytes: Buffer): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes, () => resolve(socket)));
    socket.on('error', (err) => (socket.writable ? reject(err) : undefined));
  });
}

/** Resolves true when the broker closes `socket` within `ms`, false otherwise. */
const closedWithin = (socket: Socket, ms: number) =>
  new Promise<boolean>((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });

/** Random bytes that do not happen to start like a CONNECT (type 1), which would make the broker wait for the rest. */
function noise(length: number): Buffer {
  const bytes = randomBytes(length);
  if (bytes[0] >> 4 === 1) bytes[0] ^= 0x80;
  return bytes;
}

describe('the MQTT listener facing malformed input', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** A device still connects and two devices still exchange a message. */
  async function expectServiceWorks() {
    const [sender, receiver] = await aGroup(stack, 2);
    const [tx, rx] = [await connectDevice(stack.mqttUrl, sender), await connectDevice(stack.mqttUrl, receiver)];
    try {
      await rx.subscribeAsync('@msg/after-garbage');
      const arrived = nextMessage(rx);
      await tx.publishAsync('@msg/after-garbage', 'still alive');
      expect(await arrived).to.deep.equal({ topic: '@msg/after-garbage', payload: 'still alive' });
    } finally {
      await endAll(tx, rx);
    }
  }

  const garbage: [string, Buffer][] = [
    ['random bytes', noise(4096)],
    ['a reserved packet type (0x00) as the first packet', Buffer.from([0x00, 0x02, 0xde, 0xad])],
    ['a PUBLISH before any CONNECT', Buffer.from([0x30, 0x07, 0x00, 0x03, 0x61, 0x2f, 0x62, 0x68, 0x69])],
    ['an HTTP request', Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')],
    ['a CONNECT with an unknown protocol name', Buffer.from([0x10, 0x0c, 0x00, 0x04, 0x58, 0x58, 0x58, 0x58, 0x04, 0x02, 0x00, 0x3c, 0x00, 0x00])],
    ['a remaining length with five continuation bytes', Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x7f])],
  ];

  for (const [what, bytes] of garbage) {
    it(`closes a connection that sends ${what}, and keeps serving devices`, async () => {
      const socket = await sendBytes(stack.server.mqttPort, bytes);
      try {
        // The first packet must be CONNECT, and a malformed packet is a protocol violation: the server closes the
        // connection [MQTT-3.1.0-1], [MQTT-4.8.0-1].
        expect(await closedWithin(socket, 2000), 'socket closed by the broker').to.equal(true);
        await expectServiceWorks();
      } finally {
        socket.destroy();
      }
    });
  }

  it('cuts off a connected device that then sends garbage, and shows it offline', async () => {
    const [device] = await aGroup(stack, 1);
    const client = await connectDevice(stack.mqttUrl, device);
    try {
      const closed = closeOf(client);

      client.stream.write(Buffer.from([0x00, 0x02, 0xde, 0xad]));

      await closed;
    } finally {
      await endAll(client);
    }
    expect(await presenceBecomes(stack, device, 0)).to.equal(0);
    await expectServiceWorks();
  });

  it('[MQTT-3.1.0-1] closes a connection at the first byte of a packet that is not a CONNECT, without waiting for its body', async () => {
    // A PUBLISH that announces 200,000 bytes and sends 3 of them: nothing to wait for, the first packet is not a CONNECT.
    const socket = await sendBytes(stack.server.mqttPort, Buffer.from([0x30, 0xc0, 0x9a, 0x0c, 0x00, 0x01, 0x61]));
    try {
      expect(await closedWithin(socket, 2000), 'socket closed by the broker').to.equal(true);
    } finally {
      socket.destroy();
    }
  });

  it('keeps serving devices while a connection sits on half a CONNECT', async () => {
    // A fixed header that announces 200 bytes, followed by only 3 of them.
    const socket = await sendBytes(stack.server.mqttPort, Buffer.from([0x10, 0xc8, 0x01, 0x00, 0x04, 0x4d]));
    try {
      await expectServiceWorks();
    } finally {
      socket.destroy();
    }
  });

  it('keeps serving devices after 50 sockets of garbage arrive at once', async () => {
    const sockets = await Promise.all(Array.from({ length: 50 }, () => sendBytes(stack.server.mqttPort, noise(512))));
    try {
      await expectServiceWorks();
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
