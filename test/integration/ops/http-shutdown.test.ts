import { expect } from 'chai';
import { Agent, IncomingMessage, request } from 'node:http';
import { aDevice } from '../../helpers/devices';
import { sleep } from '../../helpers/mqtt';
import { startStack, Stack } from '../../helpers/stack';

/** Resolves with the response once its body is read. */
const answered = (req: ReturnType<typeof request>) =>
  new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', (res) => res.resume().on('end', () => resolve(res)));
    req.on('error', reject);
  });

describe('HTTP keep-alive connections during a shutdown (the path of SIGTERM)', () => {
  let stack: Stack | undefined;
  after(async () => stack?.stop().catch(() => undefined));

  it('answers a request that comes on a kept-alive connection after the stop began, and asks its client to close it', async () => {
    stack = await startStack();
    const device = await aDevice(stack);
    const { port } = new URL(stack.baseUrl);
    // One socket for both requests: the second reuses the connection the first kept alive.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const put = () =>
      request({ agent, host: '127.0.0.1', port, method: 'PUT', path: '/v2/device/message/shutdown', headers: { authorization: device.auth, 'content-type': 'text/plain' } });
    try {
      // In flight when the stop begins: its headers are read, its body not yet.
      const first = put();
      const firstAnswer = answered(first);
      first.write('hel');
      await sleep(200);
      const stopping = stack.stop();
      for (;;) {
        const refused = await fetch(`${stack.baseUrl}/healthz`).then(() => false, () => true);
        if (refused) break;
        await sleep(20);
      }
      first.end('lo');
      expect((await firstAnswer).statusCode).to.equal(200);

      const second = put();
      const secondAnswer = answered(second);
      second.end('again');
      const res = await secondAnswer;

      expect(res.statusCode).to.equal(200);
      // Else a client that keeps sending would hold the stopping node until SHUTDOWN_TIMEOUT_MS cuts it off.
      expect(res.headers.connection).to.equal('close');
      await stopping;
      stack = undefined;
    } finally {
      agent.destroy();
    }
  });
});
