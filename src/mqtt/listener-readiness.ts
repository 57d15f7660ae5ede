import type { Aedes } from 'aedes';
import type { Server } from 'node:net';
import { ReadinessCheck } from '../health/port';

/** Devices can connect: the MQTT port is listening and the broker behind it is open. */
export function mqttListenerReadinessCheck(listener: Server, aedes: Pick<Aedes, 'closed'>): ReadinessCheck {
  return {
    name: 'mqtt',
    async check() {
      if (!listener.listening) throw new Error('the MQTT port is not listening');
      if (aedes.closed) throw new Error('the MQTT broker is closed');
    },
  };
}
