/**
 * The hostile callers of the load test (noisy-neighbours.test.ts), in a process of their own so that their work never
 * delays the measuring of the well-behaved device. Reads ATTACK (JSON: the service's ports and the hostile devices),
 * attacks until SIGTERM, then prints the statuses it got as one JSON line and exits.
 */
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect, Socket } from 'node:net';
import { generate } from 'coap-packet';

interface Attack {
  httpPort: number;
  coapPort: number;
  /** `Device <id>:<token>` and id of the device that runs the absurd query. */
  querier: { deviceid: string; auth: string };
  /** The same, of the device that floods the script sandbox. */
  scripter: { deviceid: string; auth: string };
}

const attack = JSON.parse(process.env.ATTACK ?? '{}') as Attack;
const base = `http://127.0.0.1:${attack.httpPort}`;
const QUERY = '/v2/feed/api/v1/datapoints/query';
const statuses: Record<string, number> = {};
let stopping = false;

const post = async (auth: string, body: unknown): Promise<number> => {
  const res = await fetch(base + QUERY, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  return res.status;
};

const loops: Promise<void>[] = [];

// The absurd query of the report, six at a time: gaps every millisecond over 80 minutes.
const absurd = {
  start_relative: { value: 80, unit: 'minutes' },
  metrics: [{ name: attack.querier.deviceid, aggregators: [{ name: 'gaps', sampling: { value: 1, unit: 'milliseconds' } }] }],
};
for (let i = 0; i < 6; i++) {
  loops.push((async () => {
    while (!stopping) await post(attack.querier.auth, absurd);
  })());
}

// Endless scripts, six at a time; a 429 is retried at once, only not in a busy loop.
const endless = {
  start_relative: { value: 1, unit: 'hours' },
  metrics: [{ name: attack.scripter.deviceid, aggregators: [{ name: 'js_function', script: 'while(true){} return 1' }] }],
};
for (let i = 0; i < 6; i++) {
  loops.push((async () => {
    while (!stopping) if ((await post(attack.scripter.auth, endless)) === 429) await new Promise((r) => setTimeout(r, 20));
  })());
}

// Unfinished block-wise uploads without credentials from one client, new tokens all the time: 2000 blocks a second.
const udp = createSocket('udp4');
let messageId = 0;
const coapFlood = setInterval(() => {
  for (let i = 0; i < 20; i++) {
    udp.send(generate({
      code: '0.03', confirmable: true, messageId: ++messageId % 65536, token: randomBytes(8),
      options: [
        { name: 'Uri-Path', value: Buffer.from('shadow') }, { name: 'Uri-Path', value: Buffer.from('batch') },
        // Block 0 of 1024 bytes, more to come.
        { name: 'Block1', value: Buffer.of(0x0e) },
      ],
      payload: Buffer.alloc(1024, 0x20),
    }), attack.coapPort, '127.0.0.1');
  }
}, 10);

// 40 connections with complete headers, then a body of one byte a second; half of them with credentials.
const sockets: Socket[] = [];
for (let i = 0; i < 40; i++) {
  const socket = connect(attack.httpPort, '127.0.0.1', () => {
    const auth = i % 2 === 0 ? `Authorization: ${attack.querier.auth}\r\n` : '';
    socket.write(`POST ${QUERY} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`);
  });
  socket.on('error', () => undefined);
  sockets.push(socket);
}
const trickle = setInterval(() => sockets.forEach((s) => s.writable && s.write(' ')), 1000);

process.once('SIGTERM', () => {
  stopping = true;
  clearInterval(coapFlood);
  clearInterval(trickle);
  udp.close();
  sockets.forEach((s) => s.destroy());
  void Promise.all(loops).finally(() => {
    process.stdout.write(`${JSON.stringify(statuses)}\n`);
    process.exit(0);
  });
});
process.stdout.write('attacking\n');
