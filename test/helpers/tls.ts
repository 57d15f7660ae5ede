import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface TestCertificate {
  /** PEM of the self-signed certificate: what a client trusts as its CA. */
  cert: string;
  certFile: string;
  keyFile: string;
  /** TLS_CERT_FILE and TLS_KEY_FILE for startStack's `env`. */
  env: Record<string, string>;
  /** Removes the files. */
  remove(): void;
}

/** A fresh self-signed certificate for localhost and 127.0.0.1, written to a temporary directory. */
export async function aSelfSignedCertificate(): Promise<TestCertificate> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'openpie-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  writeFileSync(certFile, pems.cert);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  return {
    cert: pems.cert,
    certFile,
    keyFile,
    env: { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
