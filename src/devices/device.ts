/**
 * A registered device (spec 2.1 plus the registry's own fields). Times are epoch milliseconds. The token and secret
 * themselves are never kept: only their keyed digests (devices/credential-key.ts), checked with `CredentialKey.matches`. The
 * plaintext exists only in the answer that issues it (IssuedCredentials).
 */
export interface Device {
  readonly deviceid: string;
  /** The token's keyed digest, `hmac-sha256:<key id>:<mac>`: a look-up key, and what a rotation changes. */
  readonly token: string;
  /** The secret's keyed digest, in the same form. */
  readonly secret: string;
  readonly alias: string;
  readonly groupid: string;
  readonly projectid: string;
  readonly enabled: boolean;
  readonly banned: boolean;
  readonly description: string;
  /** Seconds a REST call keeps a device "online"; 0 = off (netpie reference §5.10). */
  readonly livenessttl: number;
  readonly created: number;
}


/** Credentials as issued: in the answer that creates or rotates them, and nowhere else (issue 20 §2). */
export interface IssuedCredentials {
  readonly token?: string;
  readonly secret?: string;
}

/** A device with the credentials just issued to it. */
export interface IssuedDevice {
  readonly device: Device;
  readonly issued: IssuedCredentials;
}
