import { connect, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * One load-generator process of bench/scale.ts: connects its share of the devices from its own loopback source
 * address (each address has its own ~28k ephemeral ports, and each process its own file descriptor limit), each a
 * bare MQTT 3.1.1 session (CONNECT, then SUBSCRIBE to one filter) with no client library around it, so that tens of
 * thousands fit in one process. Talks to the parent over IPC.
 */
export interface ScaleClientJob {
  host: string;
  port: number;
  localAddress: string;
  devices: { deviceid: string; token: string }[];
  filter: string;
  /** Sessions being set up at once. */
  concurrency: number;
}

export type ScaleClientReport =
  | { kind: 'connected'; sessions: number; seconds: number; failures: number; firstFailure?: string }
  | { kind: 'delivered'; sessions: number; seconds: number };

const utf8 = (s: string) => {
  const bytes = Buffer.from(s, 'utf8');
  return Buffer.concat([Buffer.from([bytes.length >> 8, bytes.length & 0xff]), bytes]);
};

function frame(firstByte: number, body: Buffer): Buffer {
  const length: number[] = [];
  let n = body.length;
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    length.push(byte);
  } while (n > 0);
  return Buffer.concat([Buffer.from([firstByte, ...length]), body]);
}

/** CONNECT (clean session, username = token, keep-alive 600 s: idle devices send nothing for 10 minutes). */
const connectPacket = (d: { deviceid: string; token: string }) =>
  frame(0x10, Buffer.concat([utf8('MQTT'), Buffer.from([4, 0x80 | 0x02, 600 >> 8, 600 & 0xff]), utf8(d.deviceid), utf8(d.token)]));

const subscribePacket = (filter: string) => frame(0x82, Buffer.concat([Buffer.from([0, 1]), utf8(filter), Buffer.from([0])]));

/** Sets up one session; resolves with its socket once SUBACK grants the filter. Counts PUBLISH packets after that. */
function session(job: ScaleClientJob, device: { deviceid: string; token: string }, onPublish: () => void): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: job.host, port: job.port, localAddress: job.localAddress });
    let stage: 'connack' | 'suback' | 'live' = 'connack';
    socket.setNoDelay(true);
    socket.on('error', (err) => reject(err));
    socket.on('close', () => reject(new Error(`closed while waiting for ${stage}`)));
    socket.on('data', (chunk: Buffer) => {
      // Small packets, one per read in practice; the first byte says what came.
      for (let at = 0; at < chunk.length; ) {
        const type = chunk[at] >> 4;
        let length = 0;
        let multiplier = 1;
        let i = at + 1;
        for (; i < chunk.length; i++) {
          length += (chunk[i] & 0x7f) * multiplier;
          multiplier *= 128;
          if ((chunk[i] & 0x80) === 0) break;
        }
        const body = chunk.subarray(i + 1, i + 1 + length);
        at = i + 1 + length;
        if (stage === 'connack' && type === 2) {
          if (body[1] !== 0) return reject(new Error(`CONNACK ${body[1]}`));
          stage = 'suback';
          socket.write(subscribePacket(job.filter));
        } else if (stage === 'suback' && type === 9) {
          if (body[2] === 0x80) return reject(new Error('SUBACK refused'));
          stage = 'live';
          resolve(socket);
        } else if (stage === 'live' && type === 3) {
          onPublish();
        }
      }
    });
    socket.write(connectPacket(device));
  });
}

async function run(job: ScaleClientJob): Promise<void> {
  const sockets: Socket[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let delivered = 0;
  let expectAt = 0;
  const send = (report: ScaleClientReport) => process.send?.(report);
  const onPublish = () => {
    delivered++;
    if (delivered === sockets.length) send({ kind: 'delivered', sessions: delivered, seconds: (performance.now() - expectAt) / 1000 });
  };
  const start = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < job.devices.length) {
      const device = job.devices[next++];
      try {
        sockets.push(await session(job, device, onPublish));
      } catch (err) {
        failures++;
        firstFailure ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  send({ kind: 'connected', sessions: sockets.length, seconds: (performance.now() - start) / 1000, failures, firstFailure });
  process.on('message', (message: { kind: string }) => {
    if (message.kind === 'expect') expectAt = performance.now();
    if (message.kind === 'close') {
      sockets.forEach((s) => s.destroy());
      process.exit(0);
    }
  });
}

process.once('message', (job: ScaleClientJob) => void run(job));
