import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/config';

describe('MQTT backbone configuration', () => {
  it('runs a single node when BACKBONE_URL is unset, with a random NODE_ID', () => {
    const [one, two] = [loadConfig({}), loadConfig({})];

    expect(one.backbone).to.equal(undefined);
    expect(one.nodeId).to.match(/^node-[0-9a-f]{8}$/);
    expect(one.nodeId).not.to.equal(two.nodeId);
  });

  it('takes the credentials out of BACKBONE_URL, so the URL can be logged', () => {
    const config = loadConfig({ BACKBONE_URL: 'mqtt://openpie-node:s%40cret@broker:21883', NODE_ID: 'edge-1' });

    expect(config.backbone).to.deep.equal({ url: 'mqtt://broker:21883', username: 'openpie-node', password: 's@cret' });
    expect(config.nodeId).to.equal('edge-1');
  });

  it('lets BACKBONE_USERNAME and BACKBONE_PASSWORD win over the URL\'s', () => {
    const config = loadConfig({ BACKBONE_URL: 'mqtts://a:b@broker', BACKBONE_USERNAME: 'node', BACKBONE_PASSWORD: 'secret' });

    expect(config.backbone).to.deep.equal({ url: 'mqtts://broker', username: 'node', password: 'secret' });
  });

  it('names a BACKBONE_URL that is no MQTT URL and a NODE_ID that is no single topic level', () => {
    let error: unknown;
    try {
      loadConfig({ BACKBONE_URL: 'http://broker', NODE_ID: 'a/b' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as Error).message).to.contain('BACKBONE_URL').and.to.contain('NODE_ID');
  });
});
