import { randomUUID } from 'node:crypto';
import { Stack } from './stack';

export interface TestDevice {
  deviceid: string;
  token: string;
  secret: string;
  alias: string;
  groupid: string;
  projectid: string;
  /** `Device <ClientID>:<token>` */
  auth: string;
}

/** Provisions a device through the real admin API; every field not given is random. */
export async function aDevice(
  stack: Pick<Stack, 'admin'>,
  fields: { projectid?: string; groupid?: string; alias?: string; livenessttl?: number } = {},
): Promise<TestDevice> {
  const res = await stack.admin('POST', '/v2/admin/devices', {
    body: {
      projectid: fields.projectid ?? 'p-' + randomUUID().slice(0, 8),
      groupid: fields.groupid ?? 'g-' + randomUUID().slice(0, 8),
      alias: fields.alias ?? 'dev-' + randomUUID().slice(0, 8),
      ...(fields.livenessttl !== undefined ? { livenessttl: fields.livenessttl } : {}),
    },
  });
  if (res.status !== 201) throw new Error(`device not created: ${res.status} ${res.text}`);
  return { ...res.body, auth: `Device ${res.body.deviceid}:${res.body.token}` };
}

/** Several devices in one project and group. */
export async function aGroup(stack: Pick<Stack, 'admin'>, count: number): Promise<TestDevice[]> {
  const projectid = 'p-' + randomUUID().slice(0, 8);
  const groupid = 'g-' + randomUUID().slice(0, 8);
  const out: TestDevice[] = [];
  for (let i = 0; i < count; i++) out.push(await aDevice(stack, { projectid, groupid }));
  return out;
}
