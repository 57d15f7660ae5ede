import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createRedisSessionStore } from '../../../src/adapters/redis/redis-session-store';
import { AppError } from '../../../src/core/errors';
import { SessionStore } from '../../../src/sessions/port';
import { dropRedisKeys, sessionStoreUrlOrSkip } from '../../helpers/redis';
import { sessionStoreContract } from './session-store.contract';

describe('session store contract on Redis', function () {
  let url = '';
  before(function () {
    url = sessionStoreUrlOrSkip(this);
  });

  sessionStoreContract('Redis', async (queueLimit) => {
    // Every instance of one suite reads the same keys (a restart), under a prefix no other run uses.
    const keyPrefix = `openpie-contract:${randomUUID()}:`;
    const opened: SessionStore[] = [createRedisSessionStore({ url, queueLimit, keyPrefix })];
    return {
      store: opened[0],
      async reopen() {
        await opened.at(-1)!.destroy();
        opened.push(createRedisSessionStore({ url, queueLimit, keyPrefix }));
        return opened.at(-1)!;
      },
      async dispose() {
        for (const store of opened) await store.destroy();
        await dropRedisKeys(url, keyPrefix);
      },
    };
  });
});

describe('the Redis session store without its server', () => {
  it('fails with 503 BACKEND_UNAVAILABLE, which a publish passes on, instead of waiting', async () => {
    // Port 1 on loopback: nothing listens there.
    const store = createRedisSessionStore({ url: 'redis://127.0.0.1:1', queueLimit: 10 });
    try {
      const failure = await store.setup({ id: 'node:1' }).then(() => undefined, (err: unknown) => err);

      expect(failure).to.be.instanceOf(AppError);
      expect((failure as AppError).code).to.equal('BACKEND_UNAVAILABLE');
      expect(await store.readiness.check().then(() => 'ok', () => 'failed')).to.equal('failed');
    } finally {
      await store.destroy();
    }
  });
});
