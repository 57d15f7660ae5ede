import { expect } from 'chai';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { aGroup, TestDevice } from '../../helpers/devices';
import { restPublish } from '../../helpers/mqtt-expect';
import { startStack, Stack } from '../../helpers/stack';

/**
 * The README's mosquitto_sub, mosquitto_pub and mosquitto_rr invocations (docs/works-with/mosquitto-clients.md), run
 * with Debian's mosquitto-clients (infra/mosquitto.sh installs them with the backbone's Mosquitto). A listener is
 * started with `-d` only so the test knows when its SUBACK came (mosquitto_sub prints "received SUBACK"); the
 * message lines are the same as without it. The README's `-h localhost -p 1883` become the stack's address and port.
 */
function mosquittoClientsAvailable(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v mosquitto_pub && command -v mosquitto_sub && command -v mosquitto_rr'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI) throw new Error('mosquitto_pub/sub/rr are missing: infra/mosquitto.sh installs mosquitto-clients');
    return false;
  }
}

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once stdout contains `text`. */
  printed(text: string, ms?: number): Promise<void>;
  /** Resolves with the exit code. */
  exited(ms?: number): Promise<number | null>;
}

function run(command: string, args: string[]): Run {
  // Line-buffered (coreutils' stdbuf): into a pipe the clients' stdio would hold their lines until they exit.
  const child = spawn('stdbuf', ['-oL', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const within = <T>(p: Promise<T>, ms: number, what: string) =>
    Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${command}: ${what} within ${ms} ms; stdout: ${out} stderr: ${err}`)), ms))]);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    printed: (text, ms = 5000) =>
      within(
        new Promise<void>((resolve) => {
          const check = () => (out.includes(text) ? resolve() : setTimeout(check, 20));
          check();
        }),
        ms,
        `no "${text}"`,
      ),
    exited: (ms = 5000) => within(exit, ms, 'no exit'),
  };
}

describe('works with the mosquitto clients: the README\'s commands', function () {
  this.timeout(30_000);
  let stack: Stack;
  let port: string;
  const running: Run[] = [];
  before(async function () {
    if (!mosquittoClientsAvailable()) {
      console.log('    skipped: mosquitto_pub/sub/rr are not installed (apt-get install mosquitto-clients, or bash infra/mosquitto.sh start)');
      this.skip();
    }
    stack = await startStack();
    port = String(stack.server.mqttPort);
  });
  afterEach(() => {
    for (const r of running.splice(0)) r.child.kill();
  });
  after(() => stack?.stop());

  const as = (device: TestDevice) => ['-h', '127.0.0.1', '-p', port, '-i', device.deviceid, '-u', device.token];
  const start = (command: string, args: string[]) => {
    const r = run(command, args);
    running.push(r);
    return r;
  };
  /** Devices as the README makes them: project `home`'s group `lights`, here with a random group per test. */
  const lampAndSwitch = () => aGroup(stack, 2);

  it('mosquitto_sub on @msg/home/# prints a REST publish as "@msg/home/lamp ON"', async () => {
    const [lamp, sw] = await lampAndSwitch();
    const sub = start('mosquitto_sub', [...as(lamp), '-t', '@msg/home/#', '-v', '-C', '1', '-d']);
    await sub.printed('received SUBACK');

    await restPublish(stack, sw, 'home/lamp', 'ON');

    expect(await sub.exited()).to.equal(0);
    expect(sub.stdout()).to.match(/^@msg\/home\/lamp ON$/m);
  });

  for (const version of ['mqttv311', 'mqttv5']) {
    it(`mosquitto_pub -V ${version} reaches a groupmate's mosquitto_sub, and -r keeps it for a later one`, async () => {
      const [lamp, sw] = await lampAndSwitch();
      const sub = start('mosquitto_sub', [...as(lamp), '-V', version, '-t', '@msg/home/lamp/state', '-C', '1', '-d']);
      await sub.printed('received SUBACK');

      const pub = start('mosquitto_pub', [...as(sw), '-V', version, '-q', '1', '-r', '-t', '@msg/home/lamp/state', '-m', 'ON']);
      expect(await pub.exited(), pub.stderr()).to.equal(0);
      expect(await sub.exited()).to.equal(0);
      const later = start('mosquitto_sub', [...as(lamp), '-V', version, '-t', '@msg/home/lamp/state', '-C', '1', '-v']);

      expect(await later.exited()).to.equal(0);
      expect(later.stdout()).to.equal('@msg/home/lamp/state ON\n');
    });
  }

  it('runs the README\'s MQTT 3.1.1 request and reply: two listeners, two REST publishes', async () => {
    const [lamp, sw] = await lampAndSwitch();
    const lampSub = start('mosquitto_sub', [...as(lamp), '-t', '@msg/home/lamp/set', '-d']);
    const switchSub = start('mosquitto_sub', [...as(sw), '-t', '@msg/home/lamp/state', '-C', '1', '-v', '-d']);
    await Promise.all([lampSub.printed('received SUBACK'), switchSub.printed('received SUBACK')]);

    await restPublish(stack, sw, 'home/lamp/set', 'ON');
    await lampSub.printed('\nON\n');
    await restPublish(stack, lamp, 'home/lamp/state', 'ON');

    expect(await switchSub.exited()).to.equal(0);
    expect(switchSub.stdout()).to.match(/^@msg\/home\/lamp\/state ON$/m);
  });

  it('runs the README\'s MQTT 5 mosquitto_rr: the lamp answers on the Response Topic, the switch prints "lamp: ON"', async () => {
    const [lamp, sw] = await lampAndSwitch();
    const lampSub = start('mosquitto_sub', [...as(lamp), '-t', '@msg/home/lamp/set', '-C', '1', '-d']);
    await lampSub.printed('received SUBACK');

    const rr = start('mosquitto_rr', [...as(sw), '-t', '@msg/home/lamp/set', '-e', '@msg/home/lamp/state', '-m', 'ON']);
    expect(await lampSub.exited()).to.equal(0);
    expect(lampSub.stdout()).to.match(/^ON$/m);
    const reply = start('mosquitto_pub', [...as(lamp), '-t', '@msg/home/lamp/state', '-m', 'lamp: ON']);

    expect(await reply.exited(), reply.stderr()).to.equal(0);
    expect(await rr.exited()).to.equal(0);
    expect(rr.stdout()).to.equal('lamp: ON\n');
  });

  it('says why a wrong token is refused, and exits non-zero', async () => {
    const [lamp] = await lampAndSwitch();

    const sub = start('mosquitto_sub', ['-h', '127.0.0.1', '-p', port, '-i', lamp.deviceid, '-u', 'wrong-token', '-t', '@msg/home/#']);

    expect(await sub.exited()).to.not.equal(0);
    expect(sub.stderr()).to.match(/not authori[sz]ed/i);
  });

  it('loses the connection publishing outside the namespace with MQTT 3.1.1, and gets the refusal with its reason with MQTT 5', async () => {
    const [sw] = await lampAndSwitch();

    // One after the other: two connections with one ClientID would take the session from each other.
    const v311 = start('mosquitto_pub', [...as(sw), '-V', 'mqttv311', '-q', '1', '-t', 'home/lamp', '-m', 'ON']);
    const v311Status = await v311.exited();
    const v5 = start('mosquitto_pub', [...as(sw), '-V', 'mqttv5', '-q', '1', '-t', 'home/lamp', '-m', 'ON']);
    await v5.exited();

    expect(v311Status).to.not.equal(0);
    expect(v311.stderr()).to.contain('The connection was lost');
    expect(v5.stderr()).to.contain('Publish 1 failed: Not authorized').and.contain('@msg/');
  });

  it('gets SUBACK 0x80 for a topic outside the namespace: mosquitto_sub says every subscription was denied and exits', async () => {
    const [lamp] = await lampAndSwitch();

    const sub = start('mosquitto_sub', [...as(lamp), '-t', 'home/#']);

    await sub.exited(); // with status 0 (mosquitto 2.0.11): the message is how a script can tell
    expect(sub.stderr()).to.contain('All subscription requests were denied.');
  });
});
