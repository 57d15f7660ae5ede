import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aDevice, TestDevice } from '../../helpers/devices';
import { HttpClient, httpClient, HttpResponse } from '../../helpers/http';
import { Stack } from '../../helpers/stack';

/** A project with devices whose shadows hold `data`, written through the admin API. */
export async function aFleet(stack: Stack, shadows: { groupid?: string; alias?: string; data: Record<string, unknown> }[]): Promise<TestDevice[]> {
  const projectid = 'p-' + randomUUID().slice(0, 8);
  const devices: TestDevice[] = [];
  for (const { groupid = 'g1', alias, data } of shadows) {
    const device = await aDevice(stack, { projectid, groupid, alias });
    const res = await stack.admin('PUT', `/v2/admin/devices/${device.deviceid}/shadow`, { body: { data } });
    expect(res.status, res.text).to.equal(200);
    devices.push(device);
  }
  return devices;
}

/** An HTTP client with a user token of the project holding `grants`. */
export async function aUserToken(stack: Stack, projectid: string, grants: string[]): Promise<HttpClient> {
  const res = await stack.admin('POST', '/v2/admin/tokens', { body: { projectid, ttl: 600, grants } });
  expect(res.status, res.text).to.equal(201);
  return httpClient(stack.baseUrl, { authorization: `Bearer ${res.body.token}` });
}

/** POST /v2/admin/projects/{projectid}/shadows/query as the admin token. */
export const adminQuery = (stack: Stack, projectid: string, body: unknown): Promise<HttpResponse> =>
  stack.admin('POST', `/v2/admin/projects/${projectid}/shadows/query`, { body });

export const idsOf = (res: HttpResponse): string[] => {
  expect(res.status, res.text).to.equal(200);
  return res.body.items.map((item: { deviceid: string }) => item.deviceid);
};

/** Asks until `check` passes or `ms` pass: the index follows writes a store read after their notice. */
export async function eventually(check: () => Promise<void>, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
