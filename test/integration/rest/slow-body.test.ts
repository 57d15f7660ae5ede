import { expect } from 'chai';
import { connect, Socket } from 'node:net';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const BODY_TIMEOUT_MS = 500;

/** What a raw HTTP client gets back, and when the server closed the connection (ms after the headers were sent). */
interface Outcome {
  reply: string;
  closedAfterMs: number;
}

/**
 * Sends complete headers, then the body one byte every 100 ms (a slowloris body), and waits up to `waitMs` for the
 * server to close the connection.
 */
function trickle(port: number, head: string, bodyLength: number, waitMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let reply = '';
    let sent = 0;
    const started = Date.now();
    let drip: NodeJS.Timeout | undefined;
    const finish = () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ reply, closedAfterMs: Date.now() - started });
    };
    const giveUp = setTimeout(finish, waitMs);
    socket.on('data', (chunk) => (reply += chunk.toString('utf8')));
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      socket.write(head.replace('{length}', String(bodyLength)));
      drip = setInterval(() => {
        if (sent < bodyLength && socket.writable) socket.write('x', () => undefined);
        sent++;
      }, 100);
    });
  });
}

/**
 * Issue 10 §3: an HTTP request whose headers are complete but whose body trickles in used to hold its connection
 * (past 90 s in the report); the body now has HTTP_BODY_TIMEOUT_MS from the end of the headers.
 */
describe('HTTP request bodies that trickle (issue 10)', function () {
  this.timeout(20_000);

  let stack: Stack;
  let device: TestDevice;
  let port: number;
  before(async () => {
    stack = await startStack({ env: { HTTP_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) } });
    device = await aDevice(stack);
    port = stack.server.httpPort;
  });
  after(() => stack.stop());

  it('answers 408 REQUEST_TIMEOUT to a body still arriving after HTTP_BODY_TIMEOUT_MS, and closes the connection', async () => {
    const head = `PUT /v2/device/shadow/data HTTP/1.1\r\nHost: x\r\nAuthorization: ${device.auth}\r\n` +
      'Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n';

    const { reply, closedAfterMs } = await trickle(port, head, 1000, 5000);

    expect(reply).to.match(/^HTTP\/1\.1 408 /);
    expect(reply).to.match(/connection: close/i);
    expect(reply).to.include('"code":"REQUEST_TIMEOUT"');
    expect(closedAfterMs).to.be.within(BODY_TIMEOUT_MS - 50, BODY_TIMEOUT_MS + 700);
  });

  it('closes the connection of a body nobody reads once HTTP_BODY_TIMEOUT_MS has passed', async () => {
    const head = `GET /v2/device/status HTTP/1.1\r\nHost: x\r\nAuthorization: ${device.auth}\r\nContent-Length: {length}\r\n\r\n`;

    const { reply, closedAfterMs } = await trickle(port, head, 1000, 5000);

    expect(reply).to.match(/^HTTP\/1\.1 200 /);
    expect(closedAfterMs).to.be.within(BODY_TIMEOUT_MS - 50, BODY_TIMEOUT_MS + 700);
  });

  it('takes a body that arrives in time, however it is split', async () => {
    const body = JSON.stringify({ data: { slow: 1 } });
    const head = `PUT /v2/device/shadow/data HTTP/1.1\r\nHost: x\r\nAuthorization: ${device.auth}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(head + body.slice(0, 5));
        setTimeout(() => socket.write(body.slice(5)), BODY_TIMEOUT_MS / 2);
      });
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('close', () => resolve(text));
    });
    expect(reply).to.match(/^HTTP\/1\.1 200 /);
  });
});
