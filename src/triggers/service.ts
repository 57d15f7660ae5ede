import { decodeOrThrow } from '../core/decode-errors';
import { DeviceStore } from '../devices/port';
import { AppError } from '../core/errors';
import { AddressGuard } from './address-guard';
import { DeliveryQuery, EventHook, HookName, TriggerList } from './codecs';
import { Delivery, DeliveryLog, TriggerStore } from './port';
import { hookNamesOf } from './runner';

export interface TriggerServiceDeps {
  store: TriggerStore;
  log: DeliveryLog;
  devices: DeviceStore;
  guard: AddressGuard;
}

/** Entries of the delivery log returned when no `limit` is asked for. */
const DEFAULT_DELIVERIES = 100;

/** Admin use cases of triggers, event hooks and the delivery log (issue 5 §4, §6). */
export function createTriggerService({ store, log, devices, guard }: TriggerServiceDeps) {
  async function mustGetDevice(deviceid: string) {
    const device = await devices.getDevice(deviceid);
    if (!device) throw new AppError('DEVICE_NOT_FOUND', `no device with id ${deviceid}`);
    return device;
  }

  const hookName = (name: string) => decodeOrThrow(HookName, name, 'INVALID_QUERY');

  return {
    /** The device's triggers; a device without any has an empty list. */
    async getTriggers(deviceid: string): Promise<TriggerList> {
      await mustGetDevice(deviceid);
      return (await store.getTriggers(deviceid)) ?? { enabled: true, trigger: [] };
    },

    /**
     * Replaces the device's triggers. Triggers without an `id` get their position (`"1"`, `"2"` …) unless another
     * trigger has it already; every hook they name must exist in the device's project.
     */
    async putTriggers(deviceid: string, body: unknown): Promise<TriggerList> {
      const list = decodeOrThrow(TriggerList, body);
      const device = await mustGetDevice(deviceid);
      const hooks = new Set((await store.listHooks(device.projectid)).map((h) => h.name));
      const taken = new Set(list.trigger.flatMap((tr) => (tr.id === undefined ? [] : [tr.id])));
      const trigger = list.trigger.map((tr, index) => {
        const missing = hookNamesOf(tr).find((name) => !hooks.has(name));
        if (missing !== undefined) {
          throw new AppError('INVALID_BODY', `trigger.${index}.action: project ${device.projectid} has no event hook named "${missing}"`);
        }
        if (tr.id !== undefined) return tr;
        let n = index + 1;
        while (taken.has(String(n))) n++;
        taken.add(String(n));
        return { id: String(n), ...tr };
      });
      const stored: TriggerList = { enabled: list.enabled ?? true, trigger };
      await store.putTriggers(deviceid, stored);
      return stored;
    },

    async deleteTriggers(deviceid: string): Promise<void> {
      await mustGetDevice(deviceid);
      await store.deleteTriggers(deviceid);
    },

    async listHooks(projectid: string): Promise<{ hooks: ({ name: string } & EventHook)[] }> {
      return { hooks: (await store.listHooks(projectid)).map(({ name, hook }) => ({ name, ...hook })) };
    },

    async getHook(projectid: string, name: string): Promise<{ name: string } & EventHook> {
      const hook = await store.getHook(projectid, hookName(name));
      if (!hook) throw new AppError('HOOK_NOT_FOUND', `project ${projectid} has no event hook named "${name}"`);
      return { name, ...hook };
    },

    /**
     * Creates or replaces a hook. A webhook whose host is written as a non-public address or `localhost` is refused
     * now; names are checked again, as they resolve, on every delivery.
     */
    async putHook(projectid: string, name: string, body: unknown): Promise<{ name: string } & EventHook> {
      hookName(name);
      const hook = decodeOrThrow(EventHook, body);
      if (hook.type === 'WEBHOOK') {
        const host = new URL(hook.config.uri.replace(/\{\{[\s\S]*?\}\}/g, 'x')).hostname;
        const refusal = guard.hostRefusal(host);
        if (refusal !== undefined) throw new AppError('WEBHOOK_ADDRESS_REFUSED', `config.uri: ${refusal}`);
      }
      await store.putHook(projectid, name, hook);
      return { name, ...hook };
    },

    async deleteHook(projectid: string, name: string): Promise<void> {
      if (!(await store.deleteHook(projectid, hookName(name)))) {
        throw new AppError('HOOK_NOT_FOUND', `project ${projectid} has no event hook named "${name}"`);
      }
    },

    /** The newest entries of the project's delivery log, newest first. */
    async deliveries(projectid: string, query: unknown): Promise<{ deliveries: Delivery[] }> {
      const { deviceid, limit } = decodeOrThrow(DeliveryQuery, query, 'INVALID_QUERY');
      return { deliveries: await log.list(projectid, { deviceid, limit: limit ?? DEFAULT_DELIVERIES }) };
    },
  };
}

export type TriggerService = ReturnType<typeof createTriggerService>;
