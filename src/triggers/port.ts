import { EventHook, EventName, TriggerList } from './codecs';

/** Where triggers and event hooks live. Like SchemaStore, it does not know devices: callers check them. */
export interface TriggerStore {
  getTriggers(deviceid: string): Promise<TriggerList | undefined>;
  putTriggers(deviceid: string, list: TriggerList): Promise<void>;
  deleteTriggers(deviceid: string): Promise<boolean>;
  getHook(projectid: string, name: string): Promise<EventHook | undefined>;
  /** Sorted by name. */
  listHooks(projectid: string): Promise<{ name: string; hook: EventHook }[]>;
  putHook(projectid: string, name: string, hook: EventHook): Promise<void>;
  deleteHook(projectid: string, name: string): Promise<boolean>;
}

/** One action of one fired trigger, or why a trigger could not fire: the delivery log (issue 5 §4). */
export interface Delivery {
  id: number;
  /** When it ended, epoch ms. */
  at: number;
  projectid: string;
  deviceid: string;
  triggerid: string;
  event: EventName;
  /** The event hook; absent when the trigger did not get as far as its hooks (quota, condition error). */
  hook?: string;
  /**
   * `delivered`; `failed` (every attempt failed, or a template could not be filled); `refused` (the webhook's address
   * is not public, WEBHOOK_ALLOW_HOSTS); `skipped` (the hook is disabled or gone); `quota_exceeded` (the project's
   * trigger runs are spent); `condition_error` (the condition could not be evaluated).
   */
  outcome: 'delivered' | 'failed' | 'refused' | 'skipped' | 'quota_exceeded' | 'condition_error';
  /** `WEBHOOK`'s method and uri as written in the hook (templates unfilled, so secrets they fill stay out of the log). */
  target?: string;
  attempts?: number;
  /** HTTP status of a webhook's last answer. */
  status?: number;
  error?: string;
  durationMs?: number;
}

/** The delivery log: the newest entries of each project are kept. */
export interface DeliveryLog {
  append(entry: Omit<Delivery, 'id'>): Promise<void>;
  /** Newest first. */
  list(projectid: string, filter: { deviceid?: string; limit: number }): Promise<Delivery[]>;
}
