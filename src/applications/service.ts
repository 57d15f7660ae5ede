import { randomUUID } from 'node:crypto';
import { AppError } from '../core/errors';
import { CredentialKey } from '../devices/credential-key';
import { DIGEST_PREFIX, generateKey } from '../devices/credentials';
import { Application, IssuedApplication } from './application';
import { ApplicationKey, CreateApplicationRequest, UpdateApplicationRequest } from './codecs';
import { ApplicationSessions, ApplicationStore } from './port';

/** Characters of a secret: 43 of 62 letters and digits, about 256 bits, as an operator key's random part. */
export const SECRET_LENGTH = 43;

/** What an unknown key is compared with, so that an unknown key and a wrong secret take the same time; matches nothing. */
const UNKNOWN_KEY_SECRET = `${DIGEST_PREFIX}-:${'A'.repeat(43)}`;

export interface ApplicationsDeps {
  store: ApplicationStore;
  /** The device credentials' service key (devices/credential-key.ts): secrets are kept as its digests. */
  credentialKey: CredentialKey;
  /** Cuts the key's live connections on every node. */
  sessions: ApplicationSessions;
  now: () => number;
}

export interface Applications {
  /** A new key of a project; its secret is in the answer, this once. */
  create(req: CreateApplicationRequest): Promise<IssuedApplication>;
  /** Of one project, or of every project. */
  list(filter: { projectid?: string }): Promise<Application[]>;
  /** APPLICATION_NOT_FOUND when there is no such key. */
  get(key: string): Promise<Application>;
  /** Renames, rescopes, disables or enables a key; a key disabled or given other groups loses its connections. */
  update(key: string, patch: UpdateApplicationRequest): Promise<Application>;
  /** A new secret, shown this once; the old one is refused from now on and the key's connections end. */
  rotate(key: string): Promise<IssuedApplication>;
  /** Deletes the key; its connections end. */
  revoke(key: string): Promise<void>;
  /**
   * The MQTT log-in of an application (username = key, password = secret): INVALID_CREDENTIALS for an unknown key or a
   * wrong secret (one answer for both, in the same time), APPLICATION_DISABLED for a disabled key with its right secret.
   * Guesses are throttled by the caller (devices/admission.ts), not here.
   */
  check(key: string, secret: string): Promise<Application>;
}

const sameGroups = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((g) => b.includes(g));

/**
 * Application keys (issue 22 §1): how an application, such as NETPIE's Node-RED nodes, logs in to the Flow Channel.
 * Like device credentials, a secret is random (not a password a person picks), kept as its keyed digest, shown once,
 * and replaced when lost. Every change that takes a right away (rotation, disabling, other groups, revocation) ends the
 * key's connections, which were admitted under the old rights.
 */
export function createApplications({ store, credentialKey, sessions, now }: ApplicationsDeps): Applications {
  const notFound = (key: string) => new AppError('APPLICATION_NOT_FOUND', `no application key ${key}`);
  const get = async (key: string) => {
    const found = await store.get(key);
    if (!found) throw notFound(key);
    return found;
  };

  return {
    async create({ projectid, name, groups }) {
      const secret = generateKey(SECRET_LENGTH);
      const application: Application = {
        key: randomUUID(),
        name: name ?? '',
        projectid,
        groups: groups ?? [],
        enabled: true,
        secret: credentialKey.digest(secret),
        created: now(),
      };
      if (!(await store.insert(application))) throw new Error('application key clash: a random UUID was taken');
      return { application, issued: { key: application.key, secret } };
    },

    list: (filter) => store.list(filter),

    get,

    async update(key, patch) {
      const before = await get(key);
      if (!(await store.update(key, patch))) throw notFound(key);
      const after = await get(key);
      if (before.enabled && !after.enabled) sessions.disconnect(key, 'application key disabled');
      else if (!sameGroups(before.groups, after.groups)) sessions.disconnect(key, 'application key given other groups');
      return after;
    },

    async rotate(key) {
      const secret = generateKey(SECRET_LENGTH);
      if (!(await store.update(key, { secret: credentialKey.digest(secret) }))) throw notFound(key);
      sessions.disconnect(key, 'application secret rotated');
      return { application: await get(key), issued: { key, secret } };
    },

    async revoke(key) {
      if (!(await store.delete(key))) throw notFound(key);
      sessions.disconnect(key, 'application key revoked');
    },

    async check(key, secret) {
      // A username that is no key (a device's token tried here, garbage) costs no read of the store.
      const found = ApplicationKey.is(key) ? await store.get(key) : undefined;
      // Compared even for an unknown key, so both failures take the same time and tell nothing of which keys exist.
      const secretOk = credentialKey.matches(secret, found?.secret ?? UNKNOWN_KEY_SECRET);
      if (!found || !secretOk) throw new AppError('INVALID_CREDENTIALS', 'unknown application key or wrong secret');
      if (!found.enabled) throw new AppError('APPLICATION_DISABLED', 'this application key is disabled');
      return found;
    },
  };
}
