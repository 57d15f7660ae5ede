import type { Aedes, Client } from 'aedes';
import { Device } from '../devices/device';
import { DesiredService } from '../desired/service';
import { desiredDeltaTopic } from '../messaging/topics';
import { subscriptionsOf } from './aedes-patches';

/**
 * `@shadow/desired/delta` is retained-like (docs/mqtt.md "Desired state"): a device that starts listening gets its
 * current delta, if it is not empty, as a new subscriber gets a retained message [MQTT-3.3.1-6]: after its SUBACK, on
 * every SUBSCRIBE to the topic, and when a persistent session comes back already subscribed (aedes restores its
 * subscriptions without a 'subscribe' event). The delta goes out on the bus like any push, so it queues behind the
 * device's other pushes.
 */
export function attachDesiredDelta(aedes: Aedes, scopes: WeakMap<Client, Device>, desired: Pick<DesiredService, 'resend'>): void {
  aedes.on('subscribe', (subs, client) => {
    const device = scopes.get(client);
    if (!device) return;
    const topic = desiredDeltaTopic(device.deviceid);
    // A refused filter keeps its SUBACK failure code (0x80 and up) as its QoS.
    if (subs.some((s) => s.topic === topic && s.qos < 0x80)) void desired.resend(device.deviceid);
  });
  aedes.on('clientReady', (client) => {
    const device = scopes.get(client);
    if (!device || client.clean) return;
    if (Object.hasOwn(subscriptionsOf(client), desiredDeltaTopic(device.deviceid))) void desired.resend(device.deviceid);
  });
}
