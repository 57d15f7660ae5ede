import { expect } from 'chai';
import { parseProxyHeader } from '../../src/net/proxy-protocol';
import { proxyV1, proxyV2, proxyV2Local } from '../helpers/proxy-protocol';

const v2 = (versionCommand: number, familyTransport: number, addresses: number[]) =>
  Buffer.concat([Buffer.from('0d0a0d0a000d0a515549540a', 'hex'), Buffer.from([versionCommand, familyTransport, 0, addresses.length]), Buffer.from(addresses)]);

describe('PROXY protocol header (HAProxy "The PROXY protocol" 2.1, 2.2)', () => {
  it('reads a v1 TCP4 and TCP6 line and says how many bytes it took', () => {
    const line = proxyV1('192.0.2.7', 51234);
    expect(parseProxyHeader(Buffer.concat([line, Buffer.from('GET / HTTP/1.1')]))).to.deep.equal({
      header: { kind: 'proxied', source: { address: '192.0.2.7', port: 51234, family: 'IPv4' } },
      length: line.length,
    });
    const six = Buffer.from('PROXY TCP6 2001:0db8:0:0:0:0:0:0007 ::1 443 8883\r\n');
    expect(parseProxyHeader(six)).to.deep.include({ header: { kind: 'proxied', source: { address: '2001:db8::7', port: 443, family: 'IPv6' } } });
  });

  it('reads a v2 PROXY header over IPv4 and IPv6, skipping TLVs', () => {
    const header = proxyV2('198.51.100.9', 1883, Buffer.from([0x04, 0, 1, 0]));
    expect(parseProxyHeader(header)).to.deep.equal({ header: { kind: 'proxied', source: { address: '198.51.100.9', port: 1883, family: 'IPv4' } }, length: header.length });
    const ipv6 = [0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 0x07, ...Array(15).fill(0), 1, 0x1f, 0x90, 0x22, 0xb3];
    expect(parseProxyHeader(v2(0x21, 0x21, ipv6))).to.deep.include({ header: { kind: 'proxied', source: { address: '2001:db8::7', port: 8080, family: 'IPv6' } } });
  });

  it("keeps the connection's own address for v1 UNKNOWN, v2 LOCAL, UNSPEC and AF_UNIX", () => {
    expect(parseProxyHeader(Buffer.from('PROXY UNKNOWN anything\r\n'))).to.deep.include({ header: { kind: 'local' } });
    expect(parseProxyHeader(proxyV2Local())).to.deep.equal({ header: { kind: 'local' }, length: 16 });
    expect(parseProxyHeader(v2(0x21, 0x00, []))).to.deep.include({ header: { kind: 'local' } });
    expect(parseProxyHeader(v2(0x21, 0x31, Array(216).fill(0)))).to.deep.include({ header: { kind: 'local' } });
  });

  it('waits for the rest of a header cut anywhere', () => {
    for (const header of [proxyV1('192.0.2.7'), proxyV2('192.0.2.7')]) {
      for (let cut = 0; cut < header.length; cut++) expect(parseProxyHeader(header.subarray(0, cut))).to.deep.equal({ incomplete: true });
    }
  });

  it('refuses what is not a header, at the first byte that says so', () => {
    const errors = [
      Buffer.from('GET / HTTP/1.1\r\n'),
      Buffer.from([0x10, 0x0c]), // an MQTT CONNECT
      Buffer.from('PROXY TCP4 192.0.2.300 127.0.0.1 1 2\r\n'),
      Buffer.from('PROXY TCP4 192.0.2.1 127.0.0.1 01 2\r\n'),
      Buffer.from('PROXY TCP4 192.0.2.1 127.0.0.1 65536 2\r\n'),
      Buffer.from('PROXY TCP6 192.0.2.1 127.0.0.1 1 2\r\n'),
      Buffer.from('PROXY UDP4 192.0.2.1 127.0.0.1 1 2\r\n'),
      Buffer.from('PROXY TCP4 192.0.2.1 127.0.0.1 1\r\n'),
      Buffer.from(`PROXY ${'x'.repeat(101)}`), // 107 bytes without CRLF
      v2(0x11, 0x11, Array(12).fill(0)), // version 1 in a v2 signature
      v2(0x22, 0x11, Array(12).fill(0)), // command 2
      v2(0x21, 0x41, Array(12).fill(0)), // family 4
      v2(0x21, 0x13, Array(12).fill(0)), // transport 3
      v2(0x21, 0x11, Array(8).fill(0)), // IPv4 addresses cut short
    ];
    for (const bytes of errors) expect(parseProxyHeader(bytes), bytes.toString('latin1')).to.have.property('error').that.is.a('string');
  });
});
