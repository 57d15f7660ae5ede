import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/config';

describe('configuration: budgets of shared resources (issue 10)', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({}).limits).to.deep.equal({
      query: {
        budgets: { maxPointsScanned: 2_000_000, maxPointsReturned: 1_000_000, maxResponseBytes: 32 * 1024 * 1024, maxGroups: 10_000, timeoutMs: 10_000 },
        concurrency: 8,
        perCaller: 2,
        queuePerCaller: 8,
        queueTimeoutMs: 10_000,
      },
      fleet: {
        maxScanned: 250_000, timeoutMs: 2_000, concurrency: 4, perCaller: 2, queuePerCaller: 8, queueTimeoutMs: 5_000,
        maxAgeMs: 600_000, idleMs: 1_800_000,
      },
      sandbox: { workers: 2, perCaller: 1 },
      httpBodyTimeoutMs: 30_000,
      coapUploads: { perClient: 4, bytesPerClient: 2 * 1024 * 1024, bytesTotal: 64 * 1024 * 1024 },
    });
  });

  it('reads each variable', () => {
    const { limits } = loadConfig({
      QUERY_MAX_POINTS_SCANNED: '5', QUERY_MAX_POINTS_RETURNED: '6', QUERY_MAX_RESPONSE_BYTES: '7', QUERY_MAX_GROUPS: '8',
      QUERY_TIMEOUT_MS: '9', QUERY_CONCURRENCY: '10', QUERY_CONCURRENCY_PER_CALLER: '11', QUERY_QUEUE_PER_CALLER: '0',
      QUERY_QUEUE_TIMEOUT_MS: '13', SANDBOX_WORKERS: '3', SANDBOX_CONCURRENCY_PER_CALLER: '2', HTTP_BODY_TIMEOUT_MS: '14',
      COAP_UPLOADS_PER_CLIENT: '15', COAP_UPLOAD_BYTES_PER_CLIENT: '16', COAP_UPLOAD_BYTES_TOTAL: '17',
    });
    expect(limits.query).to.deep.equal({
      budgets: { maxPointsScanned: 5, maxPointsReturned: 6, maxResponseBytes: 7, maxGroups: 8, timeoutMs: 9 },
      concurrency: 10, perCaller: 11, queuePerCaller: 0, queueTimeoutMs: 13,
    });
    expect(limits.sandbox).to.deep.equal({ workers: 3, perCaller: 2 });
    expect(limits.httpBodyTimeoutMs).to.equal(14);
    expect(limits.coapUploads).to.deep.equal({ perClient: 15, bytesPerClient: 16, bytesTotal: 17 });
  });

  it('reads each fleet query variable', () => {
    const { limits } = loadConfig({
      FLEET_QUERY_MAX_DEVICES: '1', FLEET_QUERY_TIMEOUT_MS: '2', FLEET_QUERY_CONCURRENCY: '3', FLEET_QUERY_CONCURRENCY_PER_CALLER: '4',
      FLEET_QUERY_QUEUE_PER_CALLER: '0', FLEET_QUERY_QUEUE_TIMEOUT_MS: '6', FLEET_INDEX_MAX_AGE_MS: '7', FLEET_INDEX_IDLE_MS: '8',
    });
    expect(limits.fleet).to.deep.equal({ maxScanned: 1, timeoutMs: 2, concurrency: 3, perCaller: 4, queuePerCaller: 0, queueTimeoutMs: 6, maxAgeMs: 7, idleMs: 8 });
  });

  it('refuses zero, negative, fractional and non-numeric budgets, one line each', () => {
    let error: unknown;
    try {
      loadConfig({ QUERY_MAX_POINTS_RETURNED: '0', QUERY_TIMEOUT_MS: '-5', SANDBOX_WORKERS: '1.5', COAP_UPLOAD_BYTES_TOTAL: 'lots' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['QUERY_MAX_POINTS_RETURNED', 'QUERY_TIMEOUT_MS', 'SANDBOX_WORKERS', 'COAP_UPLOAD_BYTES_TOTAL']) {
      expect(message).to.match(new RegExp(`${name}: must be a whole number, at least`));
    }
  });
});
