import Ajv2020 from 'ajv/dist/2020';
import { expect } from 'chai';
import { ENV_NAMES, loadConfig } from '../../../src/config/config';
import { execForm, instructions, parseDockerfile } from './dockerfile';
import {
  bindSourcesOf,
  ComposeFile,
  ComposeService,
  environmentOf,
  portsOf,
  readComposeFile,
  readRepoFile,
  repoPathExists,
  withComposeDefaults,
} from './repo-files';

// CI has no Docker engine: these tests read the stack description the way Compose would and check it against the
// repository (src/config/config.ts, the Dockerfile, the mounted files). Starting the stack is a manual step (docs/production.md).

const LONG_RUNNING = ['cassandra', 'kairosdb', 'mosquitto', 'redis', 'node1', 'node2'];
const NODES = ['node1', 'node2'];

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

  it('is a valid Compose Specification file', () => {
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(COMPOSE_SCHEMA);

    const valid = validate(raw);

    expect(validate.errors ?? [], 'schema errors').to.deep.equal([]);
    expect(valid).to.equal(true);
  });

  it('runs cassandra, kairosdb, mosquitto, redis, node1 and node2, each with a health check and a restart policy', () => {
    for (const name of LONG_RUNNING) {
      const { healthcheck, restart } = service(name);
      expect(healthcheck?.disable, name).to.not.equal(true);
      expect(healthcheck?.test, `${name} healthcheck`).to.be.an('array').that.is.not.empty;
      expect(restart, name).to.equal('unless-stopped');
    }
  });

  it('creates KairosDB\'s tables in a one-shot that waits for Cassandra and that KairosDB waits for', () => {
    const schema = service('kairosdb-schema');

    expect(schema.restart).to.equal('no');
    expect(dependencies('kairosdb-schema')).to.deep.equal({ cassandra: { condition: 'service_healthy' } });
    expect(bindSourcesOf(schema)).to.include('./infra/kairosdb/schema.cql');
    expect(dependencies('kairosdb')).to.deep.equal({
      cassandra: { condition: 'service_healthy' },
      'kairosdb-schema': { condition: 'service_completed_successfully' },
    });
  });

  it('starts the nodes only when Cassandra, KairosDB, Mosquitto and Redis are healthy', () => {
    for (const name of NODES) {
      expect(dependencies(name), name).to.deep.equal({
        cassandra: { condition: 'service_healthy' },
        kairosdb: { condition: 'service_healthy' },
        mosquitto: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
    }
  });

  it('gives the nodes only variables that src/config/config.ts reads, and values it accepts', () => {
    for (const name of NODES) {
      const env = environmentOf(service(name));

      const unknown = Object.keys(env).filter((key) => !ENV_NAMES.includes(key));

      expect(unknown, `${name}: variables src/config/config.ts does not read`).to.deep.equal([]);
      const resolved = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, withComposeDefaults(value)]));
      expect(() => loadConfig(resolved), name).to.not.throw();
    }
  });

  it('points both nodes at Cassandra, KairosDB, the Mosquitto backbone and the Redis session store', () => {
    for (const name of NODES) {
      const env = environmentOf(service(name));
      expect(env, name).to.include({
        STORE: 'cassandra',
        CASSANDRA_CONTACT_POINTS: 'cassandra:9042',
        TIMESERIES: 'kairosdb',
        KAIROSDB_URL: 'http://kairosdb:8080',
        BACKBONE_URL: 'mqtt://mosquitto:1883',
        SESSION_STORE: 'redis',
        SESSION_STORE_URL: 'redis://redis:6379',
        DATA_DIR: '/data',
      });
    }
  });

  it('keeps Redis\'s append-only file on a volume, so queued messages outlive the container', () => {
    const redis = service('redis');

    expect(redis.command).to.include.members(['--appendonly', 'yes']);
    expect(redis.volumes).to.deep.equal(['redis-data:/data']);
  });

  it('shares one admin token, one credential key file and Mosquitto\'s login between the nodes, and gives each its own id and data volume', () => {
    const [one, two] = NODES.map((name) => environmentOf(service(name)));
    const mosquitto = environmentOf(service('mosquitto'));

    expect(one.ADMIN_TOKEN).to.equal(two.ADMIN_TOKEN);
    expect(withComposeDefaults(one.ADMIN_TOKEN)).to.have.length.of.at.least(16);
    for (const env of [one, two]) {
      expect(env.BACKBONE_USERNAME).to.equal(mosquitto.MOSQUITTO_USER);
      expect(env.BACKBONE_PASSWORD).to.equal(mosquitto.MOSQUITTO_PASSWORD);
    }
    expect(one.NODE_ID).to.not.equal(two.NODE_ID);
    // Device credentials are kept as digests under one key: both nodes read the same file, on the volume they share.
    expect(one.CREDENTIAL_KEY_FILE).to.equal('/keys/credential-key');
    expect(two.CREDENTIAL_KEY_FILE).to.equal(one.CREDENTIAL_KEY_FILE);
    expect(service('node1').volumes).to.deep.equal(['node1-data:/data', 'node-keys:/keys']);
    expect(service('node2').volumes).to.deep.equal(['node2-data:/data', 'node-keys:/keys']);
    // A user token issued by one node must verify on the other: with STORE=cassandra the key is in Cassandra, and
    // a key file would be ignored.
    for (const env of [one, two]) expect(env).to.not.have.property('USER_TOKEN_KEY_FILE');
  });

  it('publishes on each node the ports the service listens on (PORT, MQTT_PORT, COAP_PORT over udp)', () => {
    const exposed = instructions(parseDockerfile(readRepoFile('Dockerfile')).at(-1)!, 'EXPOSE')
      .flatMap(({ args }) => args.split(/\s+/))
      .map((port) => (port.includes('/') ? port : `${port}/tcp`));
    const published: number[] = [];
    for (const name of NODES) {
      const env = environmentOf(service(name));
      const ports = portsOf(service(name));

      const targets = ports.map(({ target, protocol }) => `${target}/${protocol}`);

      expect(targets, name).to.have.members([`${env.PORT}/tcp`, `${env.MQTT_PORT}/tcp`, `${env.COAP_PORT}/udp`]);
      expect(exposed, 'Dockerfile EXPOSE').to.include.members(targets);
      published.push(...ports.map(({ published: port }) => port ?? 0));
    }
    expect(new Set(published).size, 'host ports in use twice').to.equal(published.length);
  });

  it('bind-mounts only files that exist in the repository', () => {
    const sources = Object.values(compose.services).flatMap(bindSourcesOf);

    expect(sources).to.not.be.empty;
    for (const source of sources) expect(repoPathExists(source), source).to.equal(true);
  });

  it('declares every named volume it mounts', () => {
    const named = Object.values(compose.services)
      .flatMap((s) => s.volumes ?? [])
      .filter((volume): volume is string => typeof volume === 'string' && !/^[./~]/.test(volume))
      .map((volume) => volume.split(':')[0]);

    expect(Object.keys(compose.volumes ?? {})).to.have.members([...new Set(named)]);
  });

  it('builds the nodes from the Dockerfile and KairosDB from infra/docker, with the image\'s health probe', () => {
    const builds = Object.values(compose.services).flatMap(({ build }) => (build ? [build] : []));

    for (const { context, dockerfile } of builds) {
      expect(context).to.equal('.');
      expect(repoPathExists(dockerfile ?? 'Dockerfile'), dockerfile).to.equal(true);
    }
    for (const name of NODES) expect(service(name).build?.dockerfile).to.equal('Dockerfile');
    expect(service('kairosdb').build?.dockerfile).to.equal('infra/docker/kairosdb.Dockerfile');
    const probe = instructions(parseDockerfile(readRepoFile('Dockerfile')).at(-1)!, 'HEALTHCHECK')[0];
    expect(service('node1').healthcheck?.test).to.deep.equal(['CMD', ...execForm(probe.args)]);
  });
});
