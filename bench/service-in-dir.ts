import { request } from 'node:http';
import { loadConfig } from '../src/config/config';
import { createLogger } from '../src/core/logger';
import { DEFAULT_QUERY_BUDGETS, QueryBudgets } from '../src/timeseries/query';
import { startServer } from '../src/server';
import type { BenchDevice } from './bench-service';

/** Far above any query of these benchmarks (10M points take seconds), so that a hung service fails the run. */
const REQUEST_TIMEOUT_MS = 60_000;

export interface ServiceInDir {
  baseUrl: string;
  adminToken: string;
  /** Stops the service; the data dir stays, for the next start. */
  close(): Promise<void>;
}

/**
 * Query budgets above the 10M points a benchmark query reads: the benchmarks measure how fast the engine answers,
 * not the budgets' policy (docs/limits-and-errors.md), which refuses such a query with 413 by default.
 */
export const BENCH_QUERY_BUDGETS: QueryBudgets = {
  ...DEFAULT_QUERY_BUDGETS,
  maxPointsScanned: 100_000_000,
  maxPointsReturned: 100_000_000,
  maxResponseBytes: 4 * 2 ** 30,
  timeoutMs: REQUEST_TIMEOUT_MS,
};

/** Free loopback ports for every listener, no logs, no per-device rate limit (see below), BENCH_QUERY_BUDGETS. */
export const benchConfig = (dataDir: string, adminToken: string, extra: Record<string, string> = {}) =>
  loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    MQTT_HOST: '127.0.0.1',
    MQTT_PORT: '0',
    COAP_HOST: '127.0.0.1',
    COAP_PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN: adminToken,
    RATE_LIMIT_RPS: '0',
    QUERY_MAX_POINTS_SCANNED: String(BENCH_QUERY_BUDGETS.maxPointsScanned),
    QUERY_MAX_POINTS_RETURNED: String(BENCH_QUERY_BUDGETS.maxPointsReturned),
    QUERY_MAX_RESPONSE_BYTES: String(BENCH_QUERY_BUDGETS.maxResponseBytes),
    QUERY_TIMEOUT_MS: String(BENCH_QUERY_BUDGETS.timeoutMs),
    ...extra,
  });

/**
 * The whole service as `main` runs it, on free loopback ports, logging nothing, over a data dir the caller owns: so
 * a benchmark can stop it, write into its stores directly, and start it again on the same data. The per-device rate
 * limit is off (RATE_LIMIT_RPS=0): these benchmarks measure what one device's writes and reads cost, not the policy.
 */
export async function startServiceInDir(dataDir: string, adminToken: string): Promise<ServiceInDir> {
  const config = benchConfig(dataDir, adminToken);
  const server = await startServer(config, createLogger(config.logLevel));
  return { baseUrl: `http://127.0.0.1:${server.httpPort}`, adminToken, close: server.close };
}

/**
 * POSTs a JSON body on a connection of its own, closed after the answer; resolves with the status and the body's
 * text, whatever the status. Never a kept-alive socket: a long synchronous run between two requests (an engine-only
 * query over 10M points) lets the server's keep-alive timer fire just as the next request goes out on the old
 * socket, and the request fails with "other side closed".
 */
export function postJson(url: string, auth: string, body: unknown): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: auth,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          connection: 'close',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer from ${url} within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A device made through the admin API. */
export async function createDevice(service: ServiceInDir, projectid: string, groupid: string, alias: string): Promise<BenchDevice> {
  const res = await postJson(`${service.baseUrl}/v2/admin/devices`, `Bearer ${service.adminToken}`, { projectid, groupid, alias });
  if (res.status !== 201) throw new Error(`device ${alias} not created: ${res.status} ${res.text}`);
  const { deviceid, token, secret } = JSON.parse(res.text) as { deviceid: string; token: string; secret: string };
  return { deviceid, token, secret, auth: `Device ${deviceid}:${token}` };
}

/** `Bearer <user token>` of a project (POST /v2/admin/tokens), valid for an hour. */
export async function userTokenAuth(service: ServiceInDir, projectid: string): Promise<string> {
  const res = await postJson(`${service.baseUrl}/v2/admin/tokens`, `Bearer ${service.adminToken}`, { projectid, ttl: 3600 });
  if (res.status !== 201) throw new Error(`user token not issued: ${res.status} ${res.text}`);
  return `Bearer ${(JSON.parse(res.text) as { token: string }).token}`;
}
