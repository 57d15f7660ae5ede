import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/config';

describe('configuration from the environment', () => {
  it('has a default for every variable', () => {
    const config = loadConfig({});
    expect(config).to.deep.include({ port: 8080, mqttPort: 1883, dataDir: './data', logLevel: 'info', adminToken: undefined });
    expect(config).to.deep.include({ coapPort: 5683, coapHost: '0.0.0.0' });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '' }).port).to.equal(8080);
  });

  it('names every bad variable in one readable error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', MQTT_PORT: '70000', COAP_PORT: 'udp', LOG_LEVEL: 'loud', ADMIN_TOKEN: 'short' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'MQTT_PORT', 'COAP_PORT', 'LOG_LEVEL', 'ADMIN_TOKEN']) expect(message).to.contain(name);
  });
});
