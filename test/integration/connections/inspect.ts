import { expect } from 'chai';
import { sleep } from '../../helpers/mqtt';
import { Stack } from '../../helpers/stack';

/** GET /v2/admin/devices/:deviceid/connections, once `until` holds of it (or the last answer after `ms`). */
export async function connectionsOf(stack: Pick<Stack, 'admin'>, deviceid: string, until: (body: any) => boolean = () => true, ms = 3000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await stack.admin('GET', `/v2/admin/devices/${deviceid}/connections`);
    expect(res.status, res.text).to.equal(200);
    if (until(res.body) || Date.now() > deadline) return res.body;
    await sleep(20);
  }
}
