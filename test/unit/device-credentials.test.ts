import { expect } from 'chai';
import { generateKey, secretsEqual } from '../../src/devices/credentials';
import { parseDeviceCredentials } from '../../src/http/device-auth';

describe('device credentials', () => {
  it('generates 32-character alphanumeric keys that differ', () => {
    const a = generateKey();
    expect(a).to.match(/^[A-Za-z0-9]{32}$/);
    expect(generateKey()).to.not.equal(a);
  });

  it('compares secrets of any length', () => {
    expect(secretsEqual('abc', 'abc')).to.equal(true);
    expect(secretsEqual('abc', 'abcd')).to.equal(false);
    expect(secretsEqual('', 'abc')).to.equal(false);
  });

  it('reads Device and Basic authorization headers', () => {
    const basic = Buffer.from('id-1:tok:en').toString('base64');
    expect(parseDeviceCredentials('Device id-1:tok')).to.deep.equal({ deviceid: 'id-1', token: 'tok' });
    expect(parseDeviceCredentials(`Basic ${basic}`)).to.deep.equal({ deviceid: 'id-1', token: 'tok:en' });
    expect(parseDeviceCredentials('Bearer xyz')).to.equal(undefined);
    expect(parseDeviceCredentials('Device no-colon')).to.equal(undefined);
  });
});
