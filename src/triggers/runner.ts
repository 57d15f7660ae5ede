import type { Logger } from 'pino';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { AppError } from '../core/errors';
import { compileExpression } from '../expressions/compile';
import { ExpressionError } from '../expressions/errors';
import { parseTemplate } from '../expressions/template';
import { truthy } from '../expressions/values';
import { Json, JsonObject, setMember } from '../core/json';
import { MessageBus } from '../messaging/port';
import { DEFAULT_PUBLISH } from '../messaging/publish-options';
import { deviceTopic, groupTopic, MSG, privateTopic } from '../messaging/topics';
import { QuotaGate } from '../quotas/port';
import { PushRequest } from '../push/codecs';
import { ShadowUpdate } from '../shadows/service';
import { EventHook, EventName, Trigger } from './codecs';
import { Delivery, DeliveryLog, TriggerStore } from './port';
import { EventSides, eventVariables, statusSide } from './variables';
import { contentTypeOf, HookBody, hookBody } from './hook-body';
import { WebhookSender } from './webhook';

export interface TriggerRunnerDeps {
  store: TriggerStore;
  log: DeliveryLog;
  devices: DeviceStore;
  quotas?: QuotaGate;
  webhooks: WebhookSender;
  /** The bus of MESSAGE hooks; a function because the broker that owns it is built after the shadow service. */
  bus: () => MessageBus;
  now: () => number;
  logger: Logger;
}

/** Hook actions (webhooks, messages) under way at once; more wait their turn. */
const CONCURRENT_ACTIONS = 32;
/** Actions that may wait; beyond this one is logged as failed rather than queued without end. */
const WAITING_ACTIONS = 1000;

type Base = Pick<Delivery, 'projectid' | 'deviceid' | 'triggerid' | 'event'>;

export const hookNamesOf = (trigger: Trigger): string[] => (Array.isArray(trigger.action) ? trigger.action : [trigger.action]);

/**
 * Runs triggers (issue 5 §4, netpie reference §8): after a shadow write commits, or when a device's status changes,
 * the device's enabled triggers of that event whose condition holds are charged one trigger run each and their
 * hooks run. Everything is asynchronous and never fails the write; what happens is written to the delivery log.
 */
export function createTriggerRunner(deps: TriggerRunnerDeps) {
  const { store, log, devices, quotas, webhooks, now, logger } = deps;
  const underWay = new Set<Promise<void>>();
  const waiting: (() => void)[] = [];
  let running = 0;
  let closed = false;

  function track(work: Promise<void>): void {
    const done = work.catch((err: unknown) => logger.error({ err }, 'trigger failed')).finally(() => underWay.delete(done));
    underWay.add(done);
  }

  async function record(entry: Omit<Delivery, 'id'>): Promise<void> {
    try {
      await log.append(entry);
    } catch (err) {
      logger.warn({ err, deviceid: entry.deviceid, triggerid: entry.triggerid }, 'delivery not logged');
    }
  }

  async function fire(device: Device, event: EventName, sides: EventSides): Promise<void> {
    const list = await store.getTriggers(device.deviceid);
    if (!list || list.enabled === false) return;
    for (const [index, trigger] of list.trigger.entries()) {
      if (trigger.enabled === false || trigger.event !== event) continue;
      const triggerid = trigger.id ?? String(index + 1);
      const base: Base = { projectid: device.projectid, deviceid: device.deviceid, triggerid, event };
      const variables = eventVariables(device, event, sides, triggerid);
      if (trigger.condition !== undefined) {
        try {
          if (!truthy(compileExpression(trigger.condition).run(variables))) continue;
        } catch (err) {
          if (!(err instanceof ExpressionError)) throw err;
          await record({ ...base, at: now(), outcome: 'condition_error', error: `condition: ${err.message}` });
          continue;
        }
      }
      try {
        await quotas?.spend(device.projectid, { triggerRuns: 1 }, now());
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'QUOTA_EXCEEDED')) throw err;
        await record({ ...base, at: now(), outcome: 'quota_exceeded', error: err.message });
        continue;
      }
      let hookVariables: Map<string, Json>;
      try {
        hookVariables = withTriggerValues(variables, trigger);
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        for (const hook of hookNamesOf(trigger)) await record({ ...base, hook, at: now(), outcome: 'failed', error: err.message });
        continue;
      }
      for (const name of hookNamesOf(trigger)) track(inTurn(base, name, () => runHook(device, base, name, hookVariables)));
    }
  }

  /** Runs an action when fewer than CONCURRENT_ACTIONS are under way; logs it as failed when too many wait. */
  async function inTurn(base: Base, hook: string, action: () => Promise<void>): Promise<void> {
    if (running >= CONCURRENT_ACTIONS) {
      if (waiting.length >= WAITING_ACTIONS) {
        return record({ ...base, hook, at: now(), outcome: 'failed', error: `more than ${WAITING_ACTIONS} deliveries waiting` });
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    running++;
    try {
      await action();
    } finally {
      running--;
      waiting.shift()?.();
    }
  }

  async function runHook(device: Device, base: Base, name: string, variables: Map<string, Json>): Promise<void> {
    const hook = await store.getHook(device.projectid, name);
    if (!hook || hook.enabled === false) {
      const error = hook ? `event hook "${name}" is disabled` : `project ${device.projectid} has no event hook named "${name}"`;
      return record({ ...base, hook: name, at: now(), outcome: 'skipped', error });
    }
    const target = hook.type === 'WEBHOOK' ? `${hook.config.method} ${hook.config.uri}` : `MESSAGE ${hook.config.topic}`;
    const entry = { ...base, hook: name, target };
    try {
      if (hook.type === 'WEBHOOK') {
        const outcome = await webhooks.send(webhookRequest(hook, variables));
        return record({ ...entry, at: now(), ...outcome });
      }
      const started = now();
      const { qos = DEFAULT_PUBLISH.qos, retain = DEFAULT_PUBLISH.retain } = hook.config;
      await deps.bus().publish(messageTopic(device, hook.config.topic), Buffer.from(messagePayload(hook, variables)), { qos, retain });
      return record({ ...entry, at: now(), outcome: 'delivered', attempts: 1, durationMs: now() - started });
    } catch (err) {
      // A message refused (retained limit, backbone down) is a failed delivery too, as a webhook's error answer is.
      if (!(err instanceof ExpressionError || err instanceof AppError)) throw err;
      return record({ ...entry, at: now(), outcome: 'failed', error: err.message });
    }
  }

  const schedule = (work: () => Promise<void>) => {
    if (!closed) track(work());
  };

  return {
    /** For ShadowDeps.onUpdated: fires SHADOW.UPDATED triggers of an applied write (of a batch's newest item). */
    shadowUpdated(update: ShadowUpdate): void {
      schedule(() => fire(update.device, 'SHADOW.UPDATED', {
        new: update.written,
        previous: update.previous,
        current: update.current,
        timestamp: update.timestamp,
      }));
    },

    /** For Presence.observe: fires DEVICE.STATUSCHANGED triggers. */
    statusChanged(deviceid: string, online: boolean): void {
      const at = now();
      schedule(async () => {
        const device = await devices.getDevice(deviceid);
        if (device) await fire(device, 'DEVICE.STATUSCHANGED', { new: statusSide(online), previous: statusSide(!online), current: statusSide(online), timestamp: at });
      });
    },

    /** For PushDeps.onPush: fires DEVICE.PUSH triggers, `$NEW` being the push (`title`, `subtitle`, `body`). */
    pushed(device: Device, push: PushRequest): void {
      const at = now();
      const sides = { new: { ...push }, previous: {}, current: { ...push }, timestamp: at };
      schedule(() => fire(device, 'DEVICE.PUSH', sides));
    },

    /** Stops firing, ends webhook retries, and waits for what is under way to be logged. */
    async close(): Promise<void> {
      closed = true;
      webhooks.close();
      while (underWay.size > 0) await Promise.allSettled([...underWay]);
    },
  };
}

/** The condition's variables plus the trigger's `context` (each template filled), `msg` and `option`. */
function withTriggerValues(variables: Map<string, Json>, trigger: Trigger): Map<string, Json> {
  const context: JsonObject = {};
  for (const [name, value] of Object.entries(trigger.context ?? {})) {
    try {
      setMember(context, name, typeof value === 'string' ? parseTemplate(value).value(variables) : value);
    } catch (err) {
      throw err instanceof ExpressionError ? new ExpressionError('evaluation', `context.${name}: ${err.message}`) : err;
    }
  }
  const msg = trigger.msg === undefined ? null : parseTemplate(trigger.msg).render(variables);
  return new Map<string, Json>([...variables, ['context', context], ['msg', msg], ['option', trigger.option ?? null]]);
}

function webhookRequest(hook: Extract<EventHook, { type: 'WEBHOOK' }>, variables: Map<string, Json>) {
  const { method, uri, header = {}, body } = hook.config;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(header)) {
    const text = parseTemplate(value).render(variables);
    if (/[\r\n\0]/.test(text)) throw new ExpressionError('evaluation', `header ${name}: a filled value may not hold line breaks`);
    headers[name.toLowerCase()] = text;
  }
  const filled = body === undefined ? undefined : bodyOf('body', body, contentTypeOf(header)).fill(variables);
  if (filled !== undefined && headers['content-type'] === undefined) headers['content-type'] = filled.contentType;
  // Values filled into the uri are percent-encoded: a value cannot add a query parameter or change the path.
  return { method, uri: parseTemplate(uri).render(variables, encodeURIComponent), headers, body: filled?.text };
}

/** A body or payload ready to fill; one saved before it had to be safe (issue 20 §4) fails its delivery instead. */
function bodyOf(what: 'body' | 'payload', source: string, contentType?: string): HookBody {
  const body = hookBody(source, contentType);
  if ('problem' in body) throw new ExpressionError('evaluation', `${what}: ${body.problem}`);
  return body;
}

function messageTopic(device: Device, topic: string): string {
  const parsed = deviceTopic(topic)!;
  return parsed.family === MSG ? groupTopic(device, parsed.rest) : privateTopic(device.deviceid, parsed.rest);
}

/** The payload template filled; without one, the trigger's `msg`, else `{deviceid, event, triggerid, data: $NEW}`. */
function messagePayload(hook: Extract<EventHook, { type: 'MESSAGE' }>, variables: Map<string, Json>): string {
  if (hook.config.payload !== undefined) return bodyOf('payload', hook.config.payload).fill(variables).text;
  const msg = variables.get('msg');
  if (typeof msg === 'string') return msg;
  return JSON.stringify({
    deviceid: variables.get('$DEVICEID'),
    event: variables.get('$EVENT'),
    triggerid: variables.get('$TRIGGERID'),
    data: variables.get('$NEW'),
  });
}
