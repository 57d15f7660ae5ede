import { Aedes } from 'aedes';
import { expect } from 'chai';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createAedesMessageWatch } from '../../../src/mqtt/message-watch';
import { adminAuth } from '../../../src/http/admin-auth';
import { createFailureThrottle } from '../../../src/ratelimit/failure-throttle';
import { adminConsoleRouter } from '../../../src/http/admin-console-router';
import { errorMiddleware } from '../../../src/http/error-middleware';
import { createLogger } from '../../../src/core/logger';
import { createGroupTraffic } from '../../../src/messaging/group-traffic';
import { MessageWatch } from '../../../src/messaging/port';
import { groupTopic } from '../../../src/messaging/topics';
import { openSse } from '../../helpers/event-stream';
import { sleep } from '../../helpers/mqtt';

const ADMIN_TOKEN = 'lifecycle-admin-token-0123456789';

/**
 * The event stream's resources, watched from outside: a real aedes instance, and the real watch adapter wrapped to
 * count open watches. Only the admin console router is mounted; the registry and shadow service are not reached.
 */
describe('the group message stream\'s lifecycle', () => {
  let aedes: Aedes;
  let server: Server;
  let baseUrl: string;
  let open = 0;

  beforeEach(async () => {
    aedes = await Aedes.createBroker();
    const real = createAedesMessageWatch(aedes);
    const counting: MessageWatch = {
      async watch(filter, onMessage, onEnd) {
        const stop = await real.watch(filter, onMessage, onEnd);
        open++;
        let stopped = false;
        return async () => {
          if (!stopped) open--;
          stopped = true;
          await stop();
        };
      },
    };
    const bus = {
      publish: (topic: string, payload: Buffer) =>
        new Promise<void>((resolve, reject) =>
          aedes.publish({ cmd: 'publish', topic, payload, qos: 0, retain: false, dup: false }, (err) => (err ? reject(err) : resolve()))),
    };
    const app = new Koa();
    app.use(errorMiddleware(createLogger('silent')));
    const logger = createLogger('silent');
    const router = adminConsoleRouter({
      adminAuth: adminAuth({ adminToken: ADMIN_TOKEN, operators: { nameIn: () => undefined, authenticate: async () => undefined }, failures: createFailureThrottle(Date.now), metrics: { countAuthFailure: () => undefined }, logger }),
      registry: undefined as never,
      shadowService: undefined as never,
      groupTraffic: createGroupTraffic({ bus, watch: counting, now: Date.now }),
    });
    app.use(router.routes());
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    open = 0;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
  });

  const connect = () => openSse(`${baseUrl}/v2/admin/groups/p1/g1/messages`, { authorization: `Bearer ${ADMIN_TOKEN}` });
  const until = async (check: () => boolean, ms = 2000) => {
    const deadline = Date.now() + ms;
    while (!check() && Date.now() < deadline) await sleep(10);
    return check();
  };

  it('stops watching the group when the client hangs up', async () => {
    const sse = await connect();
    await sse.next((e) => e.event === 'ready');
    expect(open).to.equal(1);

    sse.close();

    expect(await until(() => open === 0), 'the watch is still open after the client left').to.equal(true);
  });

  it('keeps each viewer\'s watch apart: one leaving does not stop the other', async () => {
    const first = await connect();
    const second = await connect();
    await first.next((e) => e.event === 'ready');
    await second.next((e) => e.event === 'ready');
    first.close();
    await until(() => open === 1);

    aedes.publish({ cmd: 'publish', topic: groupTopic({ projectid: 'p1', groupid: 'g1' }, 'still/here'), payload: Buffer.from('yes'), qos: 0, retain: false, dup: false }, () => {});

    expect((await second.next((e) => e.event === 'message')).json).to.include({ topic: '@msg/still/here', payload: 'yes' });
    second.close();
  });

  it('ends the stream when the broker closes, so the service can stop at once', async () => {
    const sse = await connect();
    await sse.next((e) => e.event === 'ready');

    await new Promise<void>((resolve) => aedes.close(() => resolve()));

    await sse.ended(2000);
    expect(await until(() => open === 0)).to.equal(true);
  });

  it('drops what a reader cannot take instead of buffering without end, and says how many', async () => {
    // Not read at all: the socket's and the stream's buffers fill, then events are counted as dropped.
    const res = await fetch(`${baseUrl}/v2/admin/groups/p1/g1/messages`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const topic = groupTopic({ projectid: 'p1', groupid: 'g1' }, 'flood');
    const publish = (payload: Buffer) =>
      new Promise<void>((resolve) => aedes.publish({ cmd: 'publish', topic, payload, qos: 0, retain: false, dup: false }, () => resolve()));
    const flood = 5000;
    for (let i = 0; i < flood; i++) await publish(Buffer.alloc(4096, 'x'));

    // Now read until the backlog is drained, then one more message: the `dropped` event comes before it.
    let text = '';
    const decoder = new TextDecoder();
    const reader = res.body!.getReader();
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += decoder.decode(value, { stream: true });
      }
    })();
    for (let seen = -1; seen !== text.length; ) {
      seen = text.length;
      await sleep(200);
    }
    await publish(Buffer.from('last'));
    expect(await until(() => text.includes('"payload":"last"'), 3000)).to.equal(true);
    await reader.cancel();
    await pump;

    const delivered = text.split('event: message').length - 1;
    const dropped = [...text.matchAll(/event: dropped\ndata: \{"count":(\d+)\}/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(dropped, 'some events should have been dropped').to.be.greaterThan(0);
    expect(delivered + dropped).to.equal(flood + 1);
  });
});
