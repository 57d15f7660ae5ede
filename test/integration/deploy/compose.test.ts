import Ajv2020 from 'ajv/dist/2020';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ENV_NAMES, loadConfig } from '../../../src/config/config';
import { execForm, instructions, parseDockerfile } from './dockerfile';
import {
  bindSourcesOf,
  byteSize,
  ComposeFile,
  ComposeService,
  durationSeconds,
  environmentOf,
  networksOf,
  portsOf,
  readComposeFile,
  readRepoFile,
  repoPathExists,
  ROOT,
  withComposeDefaults,
} from './repo-files';

// CI has no Docker engine: these tests read the stack description the way Compose would and check it against the
// repository (src/config/config.ts, the Dockerfiles, the mounted files, the balancer's configuration, the docs).
// Starting the stack is a manual step (docs/production.md).

const run = promisify(execFile);

const ENGINES = ['cassandra', 'kairosdb', 'mosquitto', 'redis'];
const NODES = ['node1', 'node2'];
const BALANCERS = ['balancer', 'coap-balancer'];
const LONG_RUNNING = [...ENGINES, ...NODES, ...BALANCERS];
const ONE_SHOTS = ['secrets-init', 'cassandra-setup'];

/** The secrets the service reads from files (src/config/variables.ts marks them; CREDENTIAL_KEY_FILE was a file already). */
const NODE_SECRET_FILES = [
  'ADMIN_TOKEN_FILE',
  'METRICS_TOKEN_FILE',
  'BACKBONE_PASSWORD_FILE',
  'CASSANDRA_PASSWORD_FILE',
  'SESSION_STORE_PASSWORD_FILE',
  'CREDENTIAL_KEY_FILE',
];
/** Read by Node itself, not by src/config. */
const RUNTIME_VARIABLES = ['NODE_OPTIONS'];
/** MQTT 5 clients get at most this keep alive (src/mqtt/v5/limits.ts, serverKeepAliveMax). */
const MAX_KEEP_ALIVE_SECONDS = 600;

// The Compose Specification's JSON schema, the one `docker compose` validates with (compose-spec/compose-go
// v2.13.0, schema/compose-spec.json, Apache-2.0), kept beside this test.
const COMPOSE_SCHEMA = JSON.parse(readRepoFile('test/integration/deploy/compose-spec.json')) as object;

describe('docker-compose.yml (production stack)', () => {
  const raw = readComposeFile();
  const compose = raw as ComposeFile;
  const service = (name: string): ComposeService => {
    const found = compose.services[name];
    if (found === undefined) throw new Error(`no service ${name}`);
    return found;
  };
  const dependencies = (name: string) => service(name).depends_on as Record<string, { condition: string }>;
  const secretsInit = readRepoFile('infra/docker/secrets-init.sh');
  const haproxy = readRepoFile('infra/balancer/haproxy.cfg');
  const nginx = readRepoFile('infra/balancer/nginx-coap.conf');

  describe('the file', () => {
    it('is a valid Compose Specification file', () => {
      const validate = new Ajv2020({ strict: false, allErrors: true }).compile(COMPOSE_SCHEMA);

      const valid = validate(raw);

      expect(validate.errors ?? [], 'schema errors').to.deep.equal([]);
      expect(valid).to.equal(true);
    });

    it('parses with `docker-compose config` (Debian\'s v1, which needs no engine)', async function () {
      const found = await run('docker-compose', ['--version']).then(() => true, () => false);
      if (!found) {
        if (process.env.CI) throw new Error('docker-compose is missing (scripts/ensure-docker-compose.sh installs it)');
        this.skip();
      }
      // v1.29 predates the top-level `name:` (its schema refuses it); everything else is checked as written.
      const dir = mkdtempSync(join(tmpdir(), 'openpie-compose-'));
      try {
        const file = join(dir, 'docker-compose.yml');
        writeFileSync(file, readRepoFile('docker-compose.yml').replace(/^name: openpie\n/m, ''));

        await run('docker-compose', ['--project-directory', ROOT, '-f', file, 'config', '-q'], { timeout: 60_000 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('names its project, so volume names do not follow the checkout folder', () => {
      expect(compose.name).to.equal('openpie');
    });
  });

  describe('services', () => {
    it('runs the engines, two nodes and two balancers, each with a health check and a restart policy', () => {
      expect(Object.keys(compose.services)).to.have.members([...LONG_RUNNING, ...ONE_SHOTS]);
      for (const name of LONG_RUNNING) {
        const { healthcheck, restart } = service(name);
        expect(healthcheck?.disable, name).to.not.equal(true);
        expect(healthcheck?.test, `${name} healthcheck`).to.be.an('array').that.is.not.empty;
        expect(restart, name).to.equal('unless-stopped');
      }
      for (const name of ONE_SHOTS) expect(service(name).restart, name).to.equal('no');
    });

    it('caps the log of every service (json-file, max-size and max-file)', () => {
      for (const [name, { logging }] of Object.entries(compose.services)) {
        expect(logging?.driver, name).to.equal('json-file');
        expect(byteSize(logging?.options?.['max-size'] ?? ''), `${name} max-size`).to.be.within(1, 100 * 1024 ** 2);
        expect(Number(logging?.options?.['max-file']), `${name} max-file`).to.be.within(1, 10);
      }
    });

    it('gives every service a memory limit, and each heap fits in its own', () => {
      for (const [name, { mem_limit: limit }] of Object.entries(compose.services)) {
        expect(limit, name).to.be.a('string');
      }
      const limitOf = (name: string) => byteSize(service(name).mem_limit ?? '0');
      const cassandra = environmentOf(service('cassandra'));
      expect(byteSize(cassandra.MAX_HEAP_SIZE)).to.be.below(limitOf('cassandra') / 2);
      expect(byteSize(cassandra.HEAP_NEWSIZE)).to.be.below(byteSize(cassandra.MAX_HEAP_SIZE));
      expect(byteSize(environmentOf(service('kairosdb')).KAIROSDB_HEAP)).to.be.below(limitOf('kairosdb') * 0.75);
      const redisMax = /^maxmemory\s+(\S+)$/m.exec(readRepoFile('infra/docker/redis.conf'))?.[1] ?? '';
      expect(byteSize(redisMax)).to.be.below(limitOf('redis'));
      for (const name of NODES) {
        const heapMb = Number(/--max-old-space-size=(\d+)/.exec(environmentOf(service(name)).NODE_OPTIONS)?.[1]);
        expect(heapMb * 1024 ** 2, name).to.be.below(limitOf(name) * 0.75);
      }
    });

    it('gives each service time to drain before Docker kills it (nodes 45 s, Cassandra 90 s)', () => {
      const grace = (name: string) => durationSeconds(service(name).stop_grace_period ?? '10s');
      for (const name of LONG_RUNNING) expect(grace(name), name).to.be.at.least(15);
      expect(grace('cassandra')).to.be.at.least(90);
      for (const name of NODES) {
        const shutdownMs = Number(environmentOf(service(name)).SHUTDOWN_TIMEOUT_MS);
        expect(grace(name), name).to.be.at.least(45);
        expect(shutdownMs / 1000, `${name} SHUTDOWN_TIMEOUT_MS`).to.be.below(grace(name));
      }
    });

    it('pins every image it pulls to an exact version, never a floating tag', () => {
      const exact = /:(\d+\.\d+\.\d+(?:[-_.][\w.-]+)?)(@sha256:[0-9a-f]{64})?$/;
      for (const [name, { image, build }] of Object.entries(compose.services)) {
        if (build !== undefined) continue;
        expect(image, name).to.match(exact);
      }
    });

    it('gives each long-running service a stable hostname, and each node its NODE_ID as hostname', () => {
      for (const name of LONG_RUNNING) expect(service(name).hostname, name).to.equal(name);
      for (const name of NODES) expect(environmentOf(service(name)).NODE_ID).to.equal(service(name).hostname);
    });
  });

  describe('start order', () => {
    it('makes the secrets first, then Cassandra\'s roles, keyspaces and KairosDB\'s tables in a one-shot', () => {
      expect(service('secrets-init').network_mode).to.equal('none');
      expect(dependencies('cassandra-setup')).to.deep.equal({
        'secrets-init': { condition: 'service_completed_successfully' },
        cassandra: { condition: 'service_healthy' },
      });
      expect(bindSourcesOf(service('cassandra-setup'))).to.include('./infra/kairosdb/schema.cql');
      expect(dependencies('kairosdb')).to.deep.equal({
        cassandra: { condition: 'service_healthy' },
        'cassandra-setup': { condition: 'service_completed_successfully' },
      });
      for (const name of ['mosquitto', 'redis']) {
        expect(dependencies(name), name).to.deep.equal({ 'secrets-init': { condition: 'service_completed_successfully' } });
      }
    });

    it('starts node1 alone on the engines, so one node creates the tables, and node2 once node1 is healthy', () => {
      const engines = {
        kairosdb: { condition: 'service_healthy' },
        mosquitto: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      };
      expect(dependencies('node1')).to.deep.equal({ 'cassandra-setup': { condition: 'service_completed_successfully' }, ...engines });
      expect(dependencies('node2')).to.deep.equal({ node1: { condition: 'service_healthy' }, ...engines });
    });

    it('starts the balancers once both nodes are healthy', () => {
      for (const name of BALANCERS) {
        expect(dependencies(name).node1, name).to.deep.equal({ condition: 'service_healthy' });
        expect(dependencies(name).node2, name).to.deep.equal({ condition: 'service_healthy' });
      }
    });
  });

  describe('exposure', () => {
    it('publishes ports on the balancers only: HTTP, HTTPS, MQTT, MQTTS and CoAP over UDP', () => {
      const published = Object.entries(compose.services).flatMap(([name, s]) =>
        portsOf(s).map(({ published: port, target, protocol }) => `${name} ${port}:${target}/${protocol}`));

      expect(published).to.have.members([
        'balancer 80:80/tcp',
        'balancer 443:443/tcp',
        'balancer 1883:1883/tcp',
        'balancer 8883:8883/tcp',
        'coap-balancer 5683:5683/udp',
      ]);
    });

    it('keeps the engines on an internal network that the balancers are not on', () => {
      expect(compose.networks?.engines?.internal).to.equal(true);
      for (const name of [...ENGINES, 'cassandra-setup']) expect(networksOf(service(name)), name).to.deep.equal(['engines']);
      for (const name of NODES) expect(networksOf(service(name)), name).to.have.members(['edge', 'engines']);
      for (const name of BALANCERS) expect(networksOf(service(name)), name).to.deep.equal(['edge']);
    });
  });

  describe('secrets', () => {
    const madeSecrets = [...secretsInit.matchAll(/^make_secret (\S+)/gm)].map((m) => m[1]);

    it('has no secret in the file, and no default for one: every value is generated by secrets-init', () => {
      const text = readRepoFile('docker-compose.yml');
      for (const [name, s] of Object.entries(compose.services)) {
        for (const [key, value] of Object.entries(environmentOf(s))) {
          if (!/PASSWORD|TOKEN|SECRET|_KEY$/.test(key) || /_FILE$/.test(key)) continue;
          expect.fail(`${name}: ${key}=${value} is a secret in the environment; use its _FILE variant`);
        }
      }
      expect(text).to.not.match(/change-me/i);
      expect(text, 'an interpolation with a default').to.not.match(/\$\{[A-Z_]*(PASSWORD|TOKEN|SECRET|KEY)[A-Z_]*:?-/);
      expect(madeSecrets).to.include.members([
        'admin-token', 'metrics-token', 'backbone-password', 'redis-password', 'cassandra-admin-password',
        'cassandra-openpie-password', 'cassandra-kairosdb-password', 'credential-key',
      ]);
      expect(secretsInit).to.match(/make_secret admin-token random_hex 20\b/, 'a 40-character admin token');
    });

    it('gives the nodes every secret as a file on their read-only secrets volume', () => {
      for (const name of NODES) {
        const env = environmentOf(service(name));
        const mount = (service(name).volumes ?? []).find((v) => typeof v === 'string' && v.startsWith('secrets-nodes:'));

        expect(mount, name).to.equal('secrets-nodes:/run/openpie-secrets:ro');
        for (const variable of NODE_SECRET_FILES) {
          expect(env[variable], `${name} ${variable}`).to.match(/^\/run\/openpie-secrets\/[a-z-]+$/);
          const file = env[variable].split('/').pop() as string;
          expect(secretsInit, `secrets-init delivers ${file}`).to.match(new RegExp(`deliver "\\$nodes" 1000:1000 ${file}\\b|for name in [^\\n]*\\b${file}\\b`));
        }
      }
    });

    it('turns on Cassandra\'s PasswordAuthenticator, Redis\'s requirepass and Mosquitto\'s password file', () => {
      expect(readRepoFile('infra/docker/cassandra-start.sh')).to.match(/^authenticator: PasswordAuthenticator$/m);
      expect(service('cassandra').entrypoint).to.deep.equal(['/bin/sh', '/openpie/cassandra-start.sh']);
      expect(readRepoFile('infra/docker/redis.conf')).to.match(/^include \/run\/openpie-secrets\/redis-auth\.conf$/m);
      expect(secretsInit).to.include("printf 'requirepass %s\\n'");
      const mosquitto = readRepoFile('infra/docker/mosquitto.conf');
      expect(mosquitto).to.match(/^allow_anonymous false$/m);
      expect(environmentOf(service('mosquitto')).MOSQUITTO_USER).to.equal(environmentOf(service('node1')).BACKBONE_USERNAME);
    });

    it('keeps passwords off the health checks\' command lines', () => {
      const checks = Object.values(compose.services).map(({ healthcheck }) => JSON.stringify(healthcheck?.test ?? ''));
      for (const check of checks) expect(check).to.not.match(/ -P | -p \$|--pass|PASSWORD\b/);
    });
  });

  describe('the nodes', () => {
    it('get only variables that src/config/config.ts (or Node) reads, and values loadConfig accepts', () => {
      const dir = mkdtempSync(join(tmpdir(), 'openpie-secrets-'));
      try {
        for (const name of NODES) {
          const env = environmentOf(service(name));

          const unknown = Object.keys(env).filter((key) => !ENV_NAMES.includes(key) && !RUNTIME_VARIABLES.includes(key));

          expect(unknown, `${name}: variables src/config/config.ts does not read`).to.deep.equal([]);
          // Each secret file as secrets-init would make it: 48 hex digits (credential-key is read later, at start).
          const resolved = Object.fromEntries(Object.entries(env).map(([key, value]) => {
            if (!key.endsWith('_FILE') || key === 'CREDENTIAL_KEY_FILE') return [key, withComposeDefaults(value)];
            const file = join(dir, key);
            writeFileSync(file, 'a1'.repeat(24));
            return [key, file];
          }));
          expect(() => loadConfig(resolved), name).to.not.throw();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('point at Cassandra (as role openpie), KairosDB, the Mosquitto backbone and the Redis session store', () => {
      for (const name of NODES) {
        const env = environmentOf(service(name));
        expect(env, name).to.include({
          STORE: 'cassandra',
          CASSANDRA_CONTACT_POINTS: 'cassandra:9042',
          CASSANDRA_USERNAME: 'openpie',
          TIMESERIES: 'kairosdb',
          KAIROSDB_URL: 'http://kairosdb:8080',
          BACKBONE_URL: 'mqtt://mosquitto:1883',
          SESSION_STORE: 'redis',
          SESSION_STORE_URL: 'redis://redis:6379',
          DATA_DIR: '/data',
        });
      }
    });

    it('share one configuration but each has its own NODE_ID and data volume', () => {
      const [one, two] = NODES.map((name) => environmentOf(service(name)));

      const { NODE_ID: id1, ...rest1 } = one;
      const { NODE_ID: id2, ...rest2 } = two;

      expect(id1).to.not.equal(id2);
      expect(rest1).to.deep.equal(rest2);
      expect(service('node1').volumes).to.deep.equal(['node1-data:/data', 'secrets-nodes:/run/openpie-secrets:ro']);
      expect(service('node2').volumes).to.deep.equal(['node2-data:/data', 'secrets-nodes:/run/openpie-secrets:ro']);
      // A user token issued by one node must verify on the other: with STORE=cassandra the key is in Cassandra.
      expect(one).to.not.have.property('USER_TOKEN_KEY_FILE');
    });

    it('take the PROXY protocol from the balancer\'s fixed address and from their own health probe only', () => {
      const balancerAddress = (service('balancer').networks as Record<string, { ipv4_address?: string }>).edge.ipv4_address;
      for (const name of NODES) {
        const env = environmentOf(service(name));
        expect(env.PROXY_PROTOCOL, name).to.equal('true');
        expect(env.PROXY_PROTOCOL_TRUSTED.split(','), name).to.have.members([balancerAddress, '127.0.0.1']);
      }
    });

    it('are built from the Dockerfile, with the image\'s health probe', () => {
      const builds = Object.values(compose.services).flatMap(({ build }) => (build ? [build] : []));

      for (const { context, dockerfile } of builds) {
        expect(context).to.equal('.');
        expect(repoPathExists(dockerfile ?? 'Dockerfile'), dockerfile).to.equal(true);
      }
      for (const name of NODES) expect(service(name).build?.dockerfile).to.equal('Dockerfile');
      expect(service('kairosdb').build?.dockerfile).to.equal('infra/docker/kairosdb.Dockerfile');
      expect(service('secrets-init').build?.dockerfile).to.equal('infra/docker/secrets-init.Dockerfile');
      const probe = instructions(parseDockerfile(readRepoFile('Dockerfile')).at(-1)!, 'HEALTHCHECK')[0];
      expect(service('node1').healthcheck?.test).to.deep.equal(['CMD', ...execForm(probe.args)]);
    });
  });

  describe('the balancers (infra/balancer)', () => {
    const section = (name: string) => new RegExp(`^(?:backend|frontend) ${name}\\n((?:[ \\t]+.*\\n|\\n)*)`, 'm').exec(haproxy)?.[1] ?? '';
    const seconds = (text: string, what: string) => {
      const value = new RegExp(`^\\s*timeout ${what}\\s+(\\S+)`, 'm').exec(text)?.[1] ?? '0s';
      return durationSeconds(value);
    };
    const env = environmentOf(service('node1'));

    it('send every node connection a PROXY v2 header and check each node\'s /readyz with one', () => {
      const defaults = /^\s*default-server (.*)$/m.exec(haproxy)?.[1] ?? '';

      expect(defaults).to.match(/\bsend-proxy-v2\b/);
      expect(defaults).to.match(/\bcheck-send-proxy\b/);
      expect(defaults).to.match(new RegExp(`\\bport ${env.PORT}\\b`));
      for (const backend of ['nodes_http', 'nodes_mqtt']) {
        expect(section(backend), backend).to.match(/option httpchk GET \/readyz/);
        const servers = [...section(backend).matchAll(/^\s*server (\S+) (\S+)/gm)].map((m) => `${m[1]} ${m[2]}`);
        const port = backend === 'nodes_http' ? env.PORT : env.MQTT_PORT;
        expect(servers, backend).to.deep.equal(NODES.map((n) => `${n} ${n}:${port}`));
      }
    });

    it('spread MQTT with leastconn and wait longer than 1.5 x the longest keep alive', () => {
      const longest = 1.5 * MAX_KEEP_ALIVE_SECONDS;

      expect(section('nodes_mqtt')).to.match(/^\s*balance leastconn$/m);
      expect(seconds(section('mqtt'), 'client')).to.be.above(longest);
      expect(seconds(section('nodes_mqtt'), 'server')).to.be.above(longest);
      expect(seconds(section('nodes_http'), 'tunnel'), 'MQTT over WebSocket').to.be.above(longest);
    });

    it('terminate TLS for HTTPS (and WSS) on 443 and MQTTS on 8883 with the certificates of the tls volume', () => {
      expect(section('http')).to.match(/^\s*bind :443 ssl crt \/etc\/haproxy\/certs\//m);
      expect(section('mqtt')).to.match(/^\s*bind :8883 ssl crt \/etc\/haproxy\/certs\//m);
      expect(service('balancer').volumes).to.include('tls:/etc/haproxy/certs:ro');
      expect(bindSourcesOf(service('balancer'))).to.include('./infra/balancer/haproxy.cfg');
    });

    it('relay CoAP over UDP to every node\'s CoAP port, a client address sticking to one node', () => {
      const servers = [...nginx.matchAll(/^\s*server (\S+):(\d+) resolve;$/gm)].map((m) => `${m[1]}:${m[2]}`);

      expect(servers).to.deep.equal(NODES.map((n) => `${n}:${env.COAP_PORT}`));
      expect(nginx).to.match(/^\s*listen 5683 udp;$/m);
      expect(nginx).to.match(/^\s*hash \$remote_addr consistent;$/m);
      expect(bindSourcesOf(service('coap-balancer'))).to.include('./infra/balancer/nginx-coap.conf');
    });
  });

  describe('the engines', () => {
    it('keep Redis\'s append-only file on a volume and refuse writes rather than evict sessions', () => {
      const conf = readRepoFile('infra/docker/redis.conf');

      expect(service('redis').command).to.deep.equal(['redis-server', '/openpie/redis.conf']);
      expect(conf).to.match(/^appendonly yes$/m);
      expect(conf).to.match(/^maxmemory-policy noeviction$/m);
      expect(service('redis').volumes).to.include('redis-data:/data');
    });

    it('configure the backbone to save within a second and to queue past 1000 messages with bounded memory', () => {
      const conf = readRepoFile('infra/docker/mosquitto.conf');
      const setting = (key: string) => new RegExp(`^${key}\\s+(\\S+)$`, 'm').exec(conf)?.[1];

      expect(setting('persistence')).to.equal('true');
      expect(setting('autosave_on_changes') === 'true' || Number(setting('autosave_interval')) <= 1).to.equal(true);
      const queued = Number(setting('max_queued_messages'));
      expect(queued === 0 || queued >= 100_000, 'max_queued_messages').to.equal(true);
      expect(Number(setting('max_queued_bytes')), 'max_queued_bytes bounds memory').to.be.above(0);
    });

    it('keep KairosDB\'s write queue across restarts, with a health check that fails when it stops draining', () => {
      const kairosdb = service('kairosdb');

      expect(environmentOf(kairosdb).KAIROSDB_QUEUE_ON_START).to.equal('keep');
      expect(kairosdb.healthcheck?.test).to.deep.equal(['CMD', '/bin/sh', '/opt/kairosdb/health.sh']);
      expect(readRepoFile('infra/docker/kairosdb-health.sh')).to.include('/datapoints/query');
      expect(readRepoFile('infra/docker/kairosdb-entrypoint.sh')).to.match(/KAIROSDB_QUEUE_ON_START:-keep/);
    });
  });

  describe('mounts', () => {
    it('bind-mounts only files that exist in the repository', () => {
      const sources = Object.values(compose.services).flatMap(bindSourcesOf);

      expect(sources).to.not.be.empty;
      for (const source of sources) expect(repoPathExists(source), source).to.equal(true);
    });

    it('declares every named volume it mounts, and mounts every one it declares', () => {
      const named = Object.values(compose.services)
        .flatMap((s) => s.volumes ?? [])
        .filter((volume): volume is string => typeof volume === 'string' && !/^[./~]/.test(volume))
        .map((volume) => volume.split(':')[0]);

      expect(Object.keys(compose.volumes ?? {})).to.have.members([...new Set(named)]);
    });
  });

  describe('docs/production.md', () => {
    const docs = readRepoFile('docs/production.md');
    const stack = docs.slice(docs.indexOf('## Production stack (docker compose)'));
    /** First-column code spans of the table that follows a line starting with `heading`. */
    const tableKeys = (heading: string) => {
      const start = stack.indexOf(heading);
      expect(start, heading).to.be.at.least(0);
      const lines = stack.slice(start).split('\n').slice(1);
      const table = lines.slice(lines.findIndex((l) => l.startsWith('|')));
      return table
        .slice(0, table.findIndex((l) => !l.startsWith('|')))
        .slice(2)
        .map((row) => /^\|\s*`([^`]+)`/.exec(row)?.[1] ?? row);
    };

    it('lists every service of the file, and no other', () => {
      expect(tableKeys('**Services.**')).to.have.members(Object.keys(compose.services));
    });

    it('lists every published port, and no other', () => {
      const published = Object.values(compose.services)
        .flatMap(portsOf)
        .map(({ published: port, protocol }) => `${port}/${protocol}`);

      expect(tableKeys('**Published ports.**')).to.have.members(published);
    });

    it('lists every secret secrets-init makes, and no other', () => {
      const made = [...secretsInit.matchAll(/^make_secret (\S+)/gm)].map((m) => m[1]);

      expect(tableKeys('**Secrets.**')).to.have.members(made);
    });
  });
});
