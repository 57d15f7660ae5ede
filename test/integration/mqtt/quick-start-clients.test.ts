import { expect } from 'chai';
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { aGroup, TestDevice } from '../../helpers/devices';
import { restPublish } from '../../helpers/mqtt-expect';
import { connect5 } from '../../helpers/mqtt5';
import { startStack, Stack } from '../../helpers/stack';

/**
 * The README's Quick start with the Mosquitto command-line clients (Debian's mosquitto-clients): one ClientID is one
 * connection, so a request and its reply take two devices; mosquitto_rr (MQTT 5 only) sends the request and waits
 * for the reply on one connection, with a responder that answers on the Response Topic. Skipped when the clients are
 * not installed, except in CI.
 */
const CLIENTS = ['/usr/bin/mosquitto_sub', '/usr/bin/mosquitto_rr', '/usr/bin/stdbuf'];

interface Sub {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

describe('Quick start with mosquitto_sub and mosquitto_rr', function () {
  this.timeout(30_000);
  let stack: Stack;
  let lamp: TestDevice;
  let lightSwitch: TestDevice;
  const subs: Sub[] = [];

  before(async function () {
    if (!CLIENTS.every(existsSync)) {
      if (process.env.CI) throw new Error('mosquitto-clients are not installed (apt-get install mosquitto-clients)');
      this.skip();
    }
    stack = await startStack();
    [lamp, lightSwitch] = await aGroup(stack, 2);
  });
  afterEach(() => {
    for (const sub of subs.splice(0)) sub.child.kill('SIGTERM');
  });
  after(() => stack?.stop());

  /** mosquitto_sub as the README runs it, with -d so the test knows when it has subscribed. */
  const sub = (device: TestDevice, topic: string, ...extra: string[]): Sub => {
    // stdbuf: mosquitto_sub buffers its output when it goes to a pipe.
    const child = spawn('stdbuf', ['-oL', 'mosquitto_sub', '-d', '-h', '127.0.0.1', '-p', String(stack.server.mqttPort), '-i', device.deviceid, '-u', device.token, '-t', topic, ...extra]);
    let output = '';
    child.stdout!.on('data', (b) => (output += b));
    child.stderr!.on('data', (b) => (output += b));
    const handle = { child, output: () => output, exited: new Promise<number | null>((done) => child.on('exit', (code) => done(code))) };
    subs.push(handle);
    return handle;
  };
  const waitFor = async (s: Sub, pattern: RegExp, ms = 10_000) => {
    const until = Date.now() + ms;
    while (!pattern.test(s.output())) {
      if (Date.now() > until) throw new Error(`${pattern} never came; output:\n${s.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('request and reply between two devices: each listens on its own connection, both send over REST', async () => {
    const lampListens = sub(lamp, '@msg/home/lamp/set');
    const switchWaits = sub(lightSwitch, '@msg/home/lamp/state', '-C', '1', '-v');
    await waitFor(lampListens, /SUBACK/);
    await waitFor(switchWaits, /SUBACK/);

    await restPublish(stack, lightSwitch, 'home/lamp/set', 'ON');
    await waitFor(lampListens, /^ON$/m);
    await restPublish(stack, lamp, 'home/lamp/state', 'ON');

    expect(await switchWaits.exited).to.equal(0);
    expect(switchWaits.output()).to.match(/^@msg\/home\/lamp\/state ON$/m);
  });

  it('a second client with the same ClientID takes the session over: the first is disconnected', async () => {
    const first = sub(lamp, '@msg/home/#');
    await waitFor(first, /SUBACK/);
    const second = sub(lamp, '@msg/home/#');
    await waitFor(second, /SUBACK/);

    await waitFor(first, /Client .* (sending CONNECT|disconnected|Connection lost)|Error/i);
  });

  it('mosquitto_rr (MQTT 5) gets the lamp\'s reply on its Response Topic, with its Correlation Data', async () => {
    // The lamp answers each request on the request's Response Topic [MQTT-4.10.0], echoing its Correlation Data.
    const { client: responder } = await connect5(stack.mqttUrl, lamp);
    try {
      await responder.subscribeAsync('@msg/home/lamp/set', { qos: 1 });
      responder.on('message', (_topic, payload, packet) => {
        const { responseTopic, correlationData } = packet.properties ?? {};
        if (responseTopic) void responder.publishAsync(responseTopic, `state ${payload.toString()}`, { qos: 1, properties: { correlationData } });
      });

      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        execFile('mosquitto_rr', ['-h', '127.0.0.1', '-p', String(stack.server.mqttPort), '-i', lightSwitch.deviceid, '-u', lightSwitch.token,
          '-t', '@msg/home/lamp/set', '-e', '@msg/home/lamp/state', '-m', 'ON', '-W', '5'],
        (err, stdout, stderr) => done({ code: err ? (err as { code?: number }).code ?? 1 : 0, stdout, stderr }));
      });

      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout.trim()).to.equal('state ON');
    } finally {
      await responder.endAsync();
    }
  });

  it('is what the README\'s Quick start says', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
    const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Where to read next'));
    expect(quickStart).to.match(/MQTT_PORT=\d+/);
    expect(quickStart).to.contain('takes the session over');
    expect(quickStart).to.contain('mosquitto_rr');
    expect(quickStart).to.contain("-t '@msg/home/lamp/set'");
    expect(quickStart).to.contain("-t '@msg/home/lamp/state'");
  });
});
