import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

/** The certificate and key the TLS listeners (MQTTS_PORT, HTTPS_PORT) serve, read once at start. */
export interface TlsCredentials {
  readonly certFile: string;
  readonly keyFile: string;
  /** PEM: the server certificate, then any intermediates. */
  readonly cert: Buffer;
  readonly key: Buffer;
}

/**
 * Reads TLS_CERT_FILE and TLS_KEY_FILE. Neither set: no TLS. Faults come back as config lines (`VARIABLE: problem`)
 * for loadConfig to report with the others, so a typo in a path stops the start instead of silently serving plain only.
 */
export function readTlsCredentials(
  certFile: string | undefined,
  keyFile: string | undefined,
): { tls?: TlsCredentials; problems: string[] } {
  if (certFile === undefined && keyFile === undefined) return { problems: [] };
  if (certFile === undefined || keyFile === undefined) {
    const [set, unset] = certFile === undefined ? ['TLS_KEY_FILE', 'TLS_CERT_FILE'] : ['TLS_CERT_FILE', 'TLS_KEY_FILE'];
    return { problems: [`${unset}: must be set too when ${set} is (set both or neither)`] };
  }
  const cert = readPem('TLS_CERT_FILE', certFile);
  const key = readPem('TLS_KEY_FILE', keyFile);
  if (typeof cert === 'string' || typeof key === 'string') {
    return { problems: [cert, key].filter((r) => typeof r === 'string') };
  }
  try {
    // OpenSSL checks both PEMs and that the key belongs to the certificate, the faults a listener would hit later.
    createSecureContext({ cert, key });
  } catch (err) {
    return { problems: [`TLS_CERT_FILE, TLS_KEY_FILE: not a usable PEM certificate and key (${(err as Error).message})`] };
  }
  return { tls: { certFile, keyFile, cert, key }, problems: [] };
}

function readPem(variable: string, file: string): Buffer | string {
  try {
    return readFileSync(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return `${variable}: cannot read ${JSON.stringify(file)} (${e.code ?? e.message})`;
  }
}
