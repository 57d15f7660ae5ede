import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/config';

const errorOf = (env: NodeJS.ProcessEnv): string => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('configuration: STORE and CASSANDRA_*', () => {
  it('keeps the registry and shadows in SQLite by default', () => {
    expect(loadConfig({}).store).to.deep.equal({ kind: 'sqlite' });
  });

  it('reads Cassandra settings with their defaults: one local node, datacenter1, keyspace openpie, replication 1', () => {
    expect(loadConfig({ STORE: 'cassandra' }).store).to.deep.equal({
      kind: 'cassandra',
      contactPoints: ['127.0.0.1:9042'],
      localDataCenter: 'datacenter1',
      keyspace: 'openpie',
      replication: 1,
      credentials: undefined,
    });
  });

  it('reads contact points, data centre, keyspace, credentials and replicas per data centre', () => {
    const store = loadConfig({
      STORE: 'cassandra',
      CASSANDRA_CONTACT_POINTS: '10.0.0.1:9042, cassandra-2:19042,[::1]:9042',
      CASSANDRA_LOCAL_DATACENTER: 'eu-west',
      CASSANDRA_KEYSPACE: 'Openpie_Prod',
      CASSANDRA_USERNAME: 'svc',
      CASSANDRA_PASSWORD: 'secret',
      CASSANDRA_REPLICATION: 'eu-west:3,us-east:2',
    }).store;

    expect(store).to.deep.equal({
      kind: 'cassandra',
      contactPoints: ['10.0.0.1:9042', 'cassandra-2:19042', '[::1]:9042'],
      localDataCenter: 'eu-west',
      keyspace: 'openpie_prod',
      replication: { 'eu-west': 3, 'us-east': 2 },
      credentials: { username: 'svc', password: 'secret' },
    });
  });

  it('names each bad variable: store kind, contact points, keyspace (it goes into CQL as it is), replication', () => {
    const message = errorOf({
      STORE: 'mongo',
      CASSANDRA_CONTACT_POINTS: 'a b:1',
      CASSANDRA_KEYSPACE: 'x; DROP KEYSPACE y',
      CASSANDRA_REPLICATION: 'three',
    });

    for (const name of ['STORE', 'CASSANDRA_CONTACT_POINTS', 'CASSANDRA_KEYSPACE', 'CASSANDRA_REPLICATION']) expect(message).to.contain(name);
  });

  it('wants CASSANDRA_USERNAME and CASSANDRA_PASSWORD together', () => {
    expect(errorOf({ CASSANDRA_PASSWORD: 'secret' })).to.contain('CASSANDRA_USERNAME: must be set when CASSANDRA_PASSWORD is');
    expect(errorOf({ CASSANDRA_USERNAME: 'svc' })).to.contain('CASSANDRA_PASSWORD: must be set when CASSANDRA_USERNAME is');
  });
});
