import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/config';

describe('configuration: TIMESERIES, KAIROSDB_URL, KAIROSDB_TIMEOUT_MS', () => {
  it('keeps points in the embedded engine by default', () => {
    expect(loadConfig({}).timeseries).to.deep.equal({ kind: 'embedded' });
  });

  it('selects KairosDB with its URL and a 10 s request deadline by default', () => {
    expect(loadConfig({ TIMESERIES: 'kairosdb', KAIROSDB_URL: 'http://127.0.0.1:28080' }).timeseries)
      .to.deep.equal({ kind: 'kairosdb', url: 'http://127.0.0.1:28080', timeoutMs: 10_000, writeHoldMs: 5000 });
    expect(loadConfig({ TIMESERIES: 'kairosdb', KAIROSDB_URL: 'https://tsdb.example', KAIROSDB_TIMEOUT_MS: '2500' }).timeseries)
      .to.deep.include({ timeoutMs: 2500 });
    expect(loadConfig({ TIMESERIES: 'kairosdb', KAIROSDB_URL: 'http://127.0.0.1:28080', KAIROSDB_WRITE_HOLD_MS: '0' }).timeseries)
      .to.deep.include({ writeHoldMs: 0 });
  });

  it('refuses kairosdb without a URL, a URL that is not http(s), and unknown backends', () => {
    const message = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as Error).message;
      }
      return expect.fail('expected a ConfigError');
    };
    expect(message({ TIMESERIES: 'kairosdb' })).to.contain('KAIROSDB_URL: must be set when TIMESERIES=kairosdb');
    expect(message({ TIMESERIES: 'kairosdb', KAIROSDB_URL: 'tcp://host:1' })).to.contain('KAIROSDB_URL');
    expect(message({ TIMESERIES: 'influx' })).to.contain('TIMESERIES');
    expect(message({ KAIROSDB_TIMEOUT_MS: '0' })).to.contain('KAIROSDB_TIMEOUT_MS');
  });
});
