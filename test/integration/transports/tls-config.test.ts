import { expect } from 'chai';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config/config';
import { aSelfSignedCertificate, TestCertificate } from '../../helpers/tls';

/** The message loadConfig throws for `env`; fails when the configuration is accepted. */
function configErrorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('Transport configuration', () => {
  let certificate: TestCertificate;
  let other: TestCertificate;
  before(async () => {
    [certificate, other] = await Promise.all([aSelfSignedCertificate(), aSelfSignedCertificate()]);
  });
  after(() => {
    certificate.remove();
    other.remove();
  });

  it('has no TLS, MQTTS_PORT 8883, HTTPS_PORT 8443 and no MQTT_WS_PORT by default', () => {
    const config = loadConfig({});

    expect(config).to.deep.include({ tls: undefined, mqttsPort: 8883, httpsPort: 8443, mqttWsPort: undefined });
  });

  it('reads the PEM pair and the ports when they are set', () => {
    const config = loadConfig({ ...certificate.env, MQTTS_PORT: '1884', HTTPS_PORT: '443', MQTT_WS_PORT: '8083' });

    expect(config.tls?.cert.toString()).to.equal(certificate.cert);
    expect(config).to.deep.include({ mqttsPort: 1884, httpsPort: 443, mqttWsPort: 8083 });
  });

  it('names a key file that cannot be read', () => {
    const missing = join(certificate.keyFile, '..', 'no-such-key.pem');

    const message = configErrorOf({ TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: missing });

    expect(message).to.equal(`invalid configuration:\n  TLS_KEY_FILE: cannot read ${JSON.stringify(missing)} (ENOENT)`);
  });

  it('wants both files or neither', () => {
    expect(configErrorOf({ TLS_CERT_FILE: certificate.certFile })).to.equal(
      'invalid configuration:\n  TLS_KEY_FILE: must be set too when TLS_CERT_FILE is (set both or neither)',
    );
    expect(configErrorOf({ TLS_KEY_FILE: certificate.keyFile })).to.equal(
      'invalid configuration:\n  TLS_CERT_FILE: must be set too when TLS_KEY_FILE is (set both or neither)',
    );
  });

  it('refuses a key that does not belong to the certificate, and a file that is not PEM', () => {
    const mismatched = configErrorOf({ TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: other.keyFile });
    const notPem = configErrorOf({ TLS_CERT_FILE: join(__dirname, 'tls-config.test.ts'), TLS_KEY_FILE: certificate.keyFile });

    expect(mismatched).to.match(/^invalid configuration:\n {2}TLS_CERT_FILE, TLS_KEY_FILE: not a usable PEM certificate and key \(.*mismatch.*\)$/);
    expect(notPem).to.match(/^invalid configuration:\n {2}TLS_CERT_FILE, TLS_KEY_FILE: not a usable PEM certificate and key \(.+\)$/);
  });

  it('refuses a port that is not a port, one line per variable', () => {
    const message = configErrorOf({ MQTT_WS_PORT: 'ws', MQTTS_PORT: '70000', HTTPS_PORT: '-1' });

    expect(message.split('\n').slice(1)).to.deep.equal([
      '  MQTT_WS_PORT: must be a port number 0-65535 (got "ws")',
      '  MQTTS_PORT: must be a port number 0-65535 (got "70000")',
      '  HTTPS_PORT: must be a port number 0-65535 (got "-1")',
    ]);
  });
});
