import { expect } from 'chai';
import { ReadinessCheck } from '../../../src/health/port';
import { aDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

type LogLine = Record<string, unknown> & { msg: string; requestId?: string };

describe('request ids in the log', () => {
  const lines: LogLine[] = [];
  const failing: ReadinessCheck = { name: 'backbone', check: () => Promise.reject(new Error('broker unreachable')) };
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      env: { LOG_LEVEL: 'debug' },
      logStream: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
      readinessChecks: [failing],
    });
  });
  after(() => stack.stop());

  const linesOf = (requestId: string) => lines.filter((l) => l.requestId === requestId);

  it('logs each request once, at the end, with the id the client sent', async () => {
    const device = await aDevice(stack);

    await stack.http('GET', '/v2/device/status', { headers: { authorization: device.auth, 'x-request-id': 'trace-4711' } });

    const logged = linesOf('trace-4711');
    expect(logged).to.have.length(1);
    expect(logged[0]).to.include({ msg: 'request', method: 'GET', path: '/v2/device/status', status: 200 });
    expect(logged[0].ms).to.be.a('number');
  });

  it('logs a request without an id under the id it made, the one in X-Request-Id and in the error body', async () => {
    const res = await stack.http('GET', '/v2/device/status');

    const requestId = res.headers.get('x-request-id') ?? '';
    expect(res.body.requestId).to.equal(requestId);
    expect(linesOf(requestId)).to.have.length(1);
    expect(linesOf(requestId)[0]).to.include({ msg: 'request', status: 401 });
  });

  it('puts the id on every line a request writes, not only on the last', async () => {
    await stack.http('GET', '/readyz', { headers: { 'x-request-id': 'probe-1' } });

    const logged = linesOf('probe-1');
    expect(logged.map((l) => l.msg)).to.deep.equal(['not ready', 'request']);
    expect(logged[0].failed).to.deep.equal({ backbone: 'broker unreachable' });
  });

  it('never logs the credentials of the request', async () => {
    const device = await aDevice(stack);

    await stack.http('GET', '/v2/device/status', { headers: { authorization: device.auth, 'x-request-id': 'secret-check' } });

    expect(JSON.stringify(lines)).not.to.contain(device.token);
  });
});
