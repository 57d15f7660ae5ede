import { expect } from 'chai';
import { AppError } from '../../src/core/errors';
import { countBackendErrors } from '../../src/metrics/backend-errors';
import { createServiceMetrics } from '../../src/metrics/service-metrics';
import { parsePrometheus, valueOf } from '../helpers/prometheus';

const exposition = async (metrics: ReturnType<typeof createServiceMetrics>) => parsePrometheus(await metrics.registry.metrics());

describe('service metrics', () => {
  it('keeps each instance in a registry of its own', async () => {
    const first = createServiceMetrics();
    const second = createServiceMetrics();

    first.countRateLimitRefusal('http');

    expect(valueOf(await exposition(first), 'openpie_rate_limit_refusals_total', { transport: 'http' })).to.equal(1);
    expect(valueOf(await exposition(second), 'openpie_rate_limit_refusals_total')).to.equal(0);
  });

  it('counts quota refusals by quota, for the quota checks to call', async () => {
    const metrics = createServiceMetrics();

    metrics.countQuotaRefusal('messages-per-day');
    metrics.countQuotaRefusal('messages-per-day');

    expect(valueOf(await exposition(metrics), 'openpie_quota_refusals_total', { quota: 'messages-per-day' })).to.equal(2);
  });

  it('times data-store queries, failed ones too', async () => {
    const metrics = createServiceMetrics();

    await metrics.timeQuery('datapoints', async () => 1);
    await metrics.timeQuery('tags', async () => Promise.reject(new Error('x'))).catch(() => undefined);

    const samples = await exposition(metrics);
    expect(valueOf(samples, 'openpie_feed_query_duration_seconds_count', { kind: 'datapoints', outcome: 'ok' })).to.equal(1);
    expect(valueOf(samples, 'openpie_feed_query_duration_seconds_count', { kind: 'tags', outcome: 'error' })).to.equal(1);
  });

  it('exposes the process metrics prom-client collects', async () => {
    const samples = await exposition(createServiceMetrics());

    expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).to.equal(true);
  });
});

describe('backend error counting', () => {
  const store = {
    async read(id: string) {
      if (id === 'gone') throw new AppError('DEVICE_NOT_FOUND', 'no such device');
      if (id === 'disk') throw new Error('SQLITE_IOERR: disk I/O error');
      return `value of ${id}`;
    },
    close() {
      throw new Error('database is locked');
    },
  };

  it('counts failures of the backend, passing results and errors through unchanged', async () => {
    const metrics = createServiceMetrics();
    const counted = countBackendErrors('sqlite', store, metrics);

    expect(await counted.read('a')).to.equal('value of a');
    const err = await counted.read('disk').catch((e: unknown) => e);
    expect(() => counted.close()).to.throw('database is locked');

    expect((err as Error).message).to.equal('SQLITE_IOERR: disk I/O error');
    expect(valueOf(await exposition(metrics), 'openpie_backend_errors_total', { backend: 'sqlite' })).to.equal(2);
  });

  it('does not count answers about the request (AppErrors)', async () => {
    const metrics = createServiceMetrics();
    const counted = countBackendErrors('sqlite', store, metrics);

    await counted.read('gone').catch(() => undefined);

    expect(valueOf(await exposition(metrics), 'openpie_backend_errors_total')).to.equal(0);
  });
});
