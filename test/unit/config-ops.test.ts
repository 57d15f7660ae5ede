import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/config';

describe('configuration of rate limits and metrics', () => {
  it('limits each device to 20 requests per second in bursts of 40, and leaves /metrics open, by default', () => {
    expect(loadConfig({})).to.deep.include({ rateLimitRps: 20, rateLimitBurst: 40, metricsToken: undefined });
  });

  it('reads fractional rates, 0 (no limit), a burst and a metrics token', () => {
    expect(loadConfig({ RATE_LIMIT_RPS: '0.5', RATE_LIMIT_BURST: '3' })).to.deep.include({ rateLimitRps: 0.5, rateLimitBurst: 3 });
    expect(loadConfig({ RATE_LIMIT_RPS: '0' }).rateLimitRps).to.equal(0);
    expect(loadConfig({ METRICS_TOKEN: 'prometheus-scrape-token' }).metricsToken).to.equal('prometheus-scrape-token');
  });

  it('refuses a negative or non-numeric rate, a burst of 0 and a short metrics token', () => {
    for (const env of [{ RATE_LIMIT_RPS: '-1' }, { RATE_LIMIT_RPS: 'fast' }, { RATE_LIMIT_BURST: '0' }, { METRICS_TOKEN: 'short' }]) {
      expect(() => loadConfig(env), JSON.stringify(env)).to.throw(ConfigError, Object.keys(env)[0]);
    }
  });

  it('allows no CORS origin by default; reads a comma-separated list of origins, or *', () => {
    expect(loadConfig({}).corsOrigins).to.deep.equal([]);
    expect(loadConfig({ CORS_ORIGINS: 'http://localhost:3000, https://grafana.example' }).corsOrigins)
      .to.deep.equal(['http://localhost:3000', 'https://grafana.example']);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).to.deep.equal(['*']);
  });

  it('refuses a CORS origin with a path, a trailing slash or no scheme', () => {
    for (const value of ['http://localhost:3000/', 'https://grafana.example/d', 'grafana.example']) {
      expect(() => loadConfig({ CORS_ORIGINS: value }), value).to.throw(ConfigError, /CORS_ORIGINS: .* is not an origin/);
    }
  });
});
