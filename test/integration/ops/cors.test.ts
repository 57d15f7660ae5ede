import { expect } from 'chai';
import { aDevice, TestDevice } from '../../helpers/devices';
import { startStack, Stack } from '../../helpers/stack';

const GRAFANA = 'http://grafana.example:3000';
const QUERY = '/v2/feed/api/v1/datapoints/query';

/** A browser's CORS preflight (fetch spec §4.8) for `method` with the given request headers. */
const preflight = (stack: Stack, path: string, origin: string, method = 'POST', headers = 'authorization,content-type') =>
  stack.http('OPTIONS', path, { headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });

describe('CORS (CORS_ORIGINS)', () => {
  describe('with allowed origins', () => {
    let stack: Stack;
    let device: TestDevice;
    before(async () => {
      stack = await startStack({ env: { CORS_ORIGINS: `${GRAFANA}, https://dash.example` } });
      device = await aDevice(stack);
    });
    after(() => stack.stop());

    it('answers a preflight from an allowed origin with 204 and what the browser asked for', async () => {
      const res = await preflight(stack, QUERY, GRAFANA, 'POST', 'authorization,content-type,x-grafana-org-id');

      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal(GRAFANA);
      expect(res.headers.get('access-control-allow-methods')).to.include('POST');
      expect(res.headers.get('access-control-allow-methods')).to.include('DELETE');
      expect(res.headers.get('access-control-allow-headers')).to.equal('authorization,content-type,x-grafana-org-id');
      expect(res.headers.get('access-control-allow-credentials')).to.equal('true');
      expect(res.headers.get('access-control-max-age')).to.equal('86400');
      expect(res.headers.get('vary')).to.include('Origin');
    });

    it('marks answers to an allowed origin, errors included, and exposes the request id and a shadow\'s ETag', async () => {
      const ok = await stack.http('POST', QUERY, {
        headers: { origin: 'https://dash.example', authorization: device.auth },
        body: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: device.deviceid }] },
      });
      const refused = await stack.http('GET', '/v2/device/status', { headers: { origin: GRAFANA } });

      expect(ok.status).to.equal(200);
      expect(ok.headers.get('access-control-allow-origin')).to.equal('https://dash.example');
      expect(ok.headers.get('access-control-expose-headers')).to.include('X-Request-Id').and.include('ETag');
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('access-control-allow-origin')).to.equal(GRAFANA);
      // /status is served by the Device API's lane, outside Koa (src/http/device-lane.ts): the same headers.
      expect(refused.headers.get('access-control-allow-credentials')).to.equal('true');
      expect(refused.headers.get('access-control-expose-headers')).to.include('X-Request-Id').and.include('Retry-After');
      expect(refused.headers.get('vary')).to.include('Origin');
      expect(refused.headers.get('x-request-id')).to.be.a('string');
    });

    it('gives other origins no CORS headers, so their browsers refuse the answer', async () => {
      const pre = await preflight(stack, QUERY, 'https://evil.example');
      const res = await stack.http('GET', '/v2/feed/api/v1/version', { headers: { origin: 'https://evil.example' } });

      expect(pre.headers.get('access-control-allow-origin')).to.equal(null);
      expect(pre.status).to.not.equal(204);
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });

  it('allows no origin by default', async () => {
    const stack = await startStack();
    try {
      const pre = await preflight(stack, QUERY, GRAFANA);
      const res = await stack.http('GET', '/v2/feed/api/v1/version', { headers: { origin: GRAFANA } });

      expect(pre.headers.get('access-control-allow-origin')).to.equal(null);
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    } finally {
      await stack.stop();
    }
  });

  it('allows every origin with *', async () => {
    const stack = await startStack({ env: { CORS_ORIGINS: '*' } });
    try {
      const pre = await preflight(stack, QUERY, 'http://anything.example:8000');
      expect(pre.status).to.equal(204);
      expect(pre.headers.get('access-control-allow-origin')).to.equal('http://anything.example:8000');
    } finally {
      await stack.stop();
    }
  });
});
