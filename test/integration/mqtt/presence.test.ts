import { expect } from 'chai';
import { once } from 'node:events';
import { connect } from 'node:net';
import mqtt, { MqttClient } from 'mqtt';
import { aDevice, aGroup } from '../../helpers/devices';
import { connectDevice, endAll, sleep } from '../../helpers/mqtt';
import { closeOf, presenceBecomes, presenceOf } from '../../helpers/mqtt-expect';
import { connectPacket } from '../../helpers/mqtt-raw';
import { startStack, Stack } from '../../helpers/stack';

describe('GET /v2/device/status with MQTT connections', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('reports 0 before the device connects, 1 while it is connected and 0 after it disconnects', async () => {
    const device = await aDevice(stack);
    expect(await presenceOf(stack, device), 'before').to.equal(0);

    const client = await connectDevice(stack.mqttUrl, device);
    try {
      expect(await presenceOf(stack, device), 'connected').to.equal(1);
    } finally {
      await client.endAsync();
    }

    expect(await presenceBecomes(stack, device, 0), 'after DISCONNECT').to.equal(0);
  });

  it('reports 0 after the connection drops without DISCONNECT', async () => {
    const device = await aDevice(stack);
    const client = await connectDevice(stack.mqttUrl, device);
    expect(await presenceOf(stack, device)).to.equal(1);

    client.stream.destroy();
    await endAll(client);

    expect(await presenceBecomes(stack, device, 0)).to.equal(0);
  });

  it('stays 1 after a take-over once the first connection is closed, and is 0 when the second ends', async () => {
    const device = await aDevice(stack);
    const first = await connectDevice(stack.mqttUrl, device);
    const firstClosed = closeOf(first);
    let second: MqttClient | undefined;
    try {
      second = await connectDevice(stack.mqttUrl, device);
      await firstClosed;
      await sleep(200);

      expect(await presenceOf(stack, device)).to.equal(1);
    } finally {
      await endAll(first, second);
    }
    expect(await presenceBecomes(stack, device, 0)).to.equal(0);
  });

  it('reports 0 once an admin change has closed the session', async () => {
    const device = await aDevice(stack);
    const client = await connectDevice(stack.mqttUrl, device);
    try {
      const closed = closeOf(client);
      await stack.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { description: 'moved', groupid: 'g-elsewhere' } });
      await closed;
    } finally {
      await endAll(client);
    }

    expect(await presenceBecomes(stack, device, 0)).to.equal(0);
  });

  it('reports 0 after a connection that sends CONNECT and hangs up at once', async () => {
    const device = await aDevice(stack);
    const socket = connect(stack.server.mqttPort, '127.0.0.1');
    try {
      await once(socket, 'connect');

      // CONNECT and FIN together: the broker sees the hang-up while it is still authenticating.
      socket.end(connectPacket(device));
      await Promise.race([once(socket, 'close'), sleep(500)]);
    } finally {
      socket.destroy();
    }

    expect(await presenceBecomes(stack, device, 0)).to.equal(0);
  });

  describe('under many rapid connections', () => {
    /** Opens a connection without waiting for it; it may be refused, taken over or closed before CONNACK. */
    function open(device: { deviceid: string; token: string }): { client: MqttClient; settled: Promise<void> } {
      const client = mqtt.connect(stack.mqttUrl, { clientId: device.deviceid, username: device.token, reconnectPeriod: 0 });
      client.on('error', () => undefined);
      // Settled: connected, or closed without ever connecting.
      const settled = new Promise<void>((resolve) => {
        client.once('connect', () => resolve());
        client.once('close', () => resolve());
      });
      return { client, settled };
    }

    it('reports 0 for every device after each one connects and drops 50 times, at moments spread over the handshake', async () => {
      const devices = await aGroup(stack, 10);
      const drops: Promise<void>[] = [];
      for (let k = 0; k < 50; k++) {
        for (const device of devices) {
          const { client } = open(device);
          // Some end before CONNECT is read, some during authentication, some after CONNACK.
          drops.push(sleep(k % 6).then(() => client.endAsync(true)));
        }
        await sleep(1);
      }
      await Promise.all(drops);

      const statuses = await Promise.all(devices.map((d) => presenceBecomes(stack, d, 0)));

      expect(statuses).to.deep.equal(devices.map(() => 0));
    });

    it('reports 1 for the devices still connected and 0 for the others', async () => {
      const devices = await aGroup(stack, 10);
      const clients = await Promise.all(devices.map((d) => connectDevice(stack.mqttUrl, d)));
      try {
        await Promise.all(clients.filter((_, i) => i % 2 === 1).map((c) => c.endAsync()));
        await Promise.all(devices.map((d, i) => presenceBecomes(stack, d, i % 2 === 0 ? 1 : 0)));

        const statuses = await Promise.all(devices.map((d) => presenceOf(stack, d)));

        expect(statuses).to.deep.equal(devices.map((_, i) => (i % 2 === 0 ? 1 : 0)));
      } finally {
        await endAll(...clients);
      }
    });

    it('reports 1 while the winner of 10 simultaneous take-overs is connected, and 0 after it ends', async () => {
      const device = await aDevice(stack);
      const opened = Array.from({ length: 10 }, () => open(device));
      const clients = opened.map((o) => o.client);
      try {
        await Promise.all(opened.map((o) => o.settled));
        await sleep(200);
        const live = clients.filter((c) => c.connected);

        expect(live, 'connections left open by the broker').to.have.length(1);
        expect(await presenceOf(stack, device)).to.equal(1);
      } finally {
        await endAll(...clients);
      }
      expect(await presenceBecomes(stack, device, 0)).to.equal(0);
    });
  });
});
