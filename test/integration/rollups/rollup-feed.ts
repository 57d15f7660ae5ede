import { expect } from 'chai';
import { Stack } from '../../helpers/stack';
import { TestDevice } from '../../helpers/devices';

/** Helpers of the roll-up suites: declaring tiers, writing history, asking the same query from tiers and raw. */

export const API = '/v2/feed/api/v1';
export const MINUTE = 60_000;
export const HOUR = 3_600_000;

export const hourStart = (t: number) => t - (t % HOUR);

/** Declares `tiers` for the project and waits until they are built. */
export async function declareRollups(stack: Stack, projectid: string, tiers: readonly { period: string; retention: string | number }[]) {
  const put = await stack.admin('PUT', `/v2/admin/projects/${projectid}/rollups`, { body: { tiers } });
  expect(put.status, put.text).to.equal(200);
  await until(async () => (await stack.admin('GET', `/v2/admin/projects/${projectid}/rollups`)).body.status === 'ready', 20_000, 'tiers built');
}

/** Points through the Device API, 100 a batch; each `data` becomes one point per numeric field. */
export async function writeHistory(stack: Stack, device: TestDevice, items: readonly { ts: number; data: Record<string, number> }[]) {
  for (let i = 0; i < items.length; i += 100) {
    const res = await stack.http('PUT', '/v2/device/shadow/batch', { headers: { authorization: device.auth }, body: { batch: items.slice(i, i + 100) } });
    expect(res.status, res.text).to.equal(200);
  }
}

/** The query answered as it would be (tiers when they can), and raw (`X-Openpie-Rollup: off`). */
export async function bothWays(stack: Stack, auth: string, body: unknown) {
  const ask = async (raw: boolean) => {
    const res = await stack.http('POST', `${API}/datapoints/query`, {
      headers: { authorization: auth, ...(raw ? { 'x-openpie-rollup': 'off' } : {}) },
      body,
    });
    expect(res.status, res.text).to.equal(200);
    return { tier: res.headers.get('x-openpie-rollup'), body: res.body };
  };
  return { served: await ask(false), raw: await ask(true) };
}

export async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
