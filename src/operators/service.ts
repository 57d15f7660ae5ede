import { AppError } from '../core/errors';
import { CredentialKey } from '../devices/credential-key';
import { generateKey } from '../devices/credentials';
import { Caller } from './access';
import { CreateOperatorRequest, OperatorRecord } from './codecs';
import { OperatorStore } from './port';

const KEY_PREFIX = 'opk.';

/** What the API shows of an operator: never its key's digest. */
export type OperatorView = Omit<OperatorRecord, 'keyDigest'>;

/** The answer that creates or rotates a key: the only one that shows it. */
export type IssuedOperator = OperatorView & { key: string };

export interface OperatorsDeps {
  store: OperatorStore;
  /** The device credentials' service key (devices/credential-key.ts): operator keys are digested the same way. */
  credentialKey: CredentialKey;
  now: () => number;
}

export interface Operators {
  create(req: CreateOperatorRequest): Promise<IssuedOperator>;
  list(): Promise<OperatorView[]>;
  get(name: string): Promise<OperatorView>;
  rotateKey(name: string): Promise<IssuedOperator>;
  remove(name: string): Promise<void>;
  /** The operator a key names, whether or not it is right (the throttle counts failures per name); undefined for no operator key. */
  nameIn(key: string): string | undefined;
  /** The caller a key stands for, or undefined when it is not an operator's current key. */
  authenticate(key: string): Promise<Caller | undefined>;
}

const view = ({ keyDigest, ...operator }: OperatorRecord): OperatorView => operator;

/**
 * Operator accounts (issue 20 §5). A key is `opk.<name>.<43 random characters>` (about 256 bits): random, not a
 * password a person picks, so like device credentials it is kept as its keyed digest (HMAC-SHA-256 with the service's
 * credential key), shown once, and replaced when lost. The name inside the key finds the account in one read.
 */
export function createOperators({ store, credentialKey, now }: OperatorsDeps): Operators {
  const newKey = (name: string) => `${KEY_PREFIX}${name}.${generateKey(43)}`;
  const notFound = (name: string) => new AppError('OPERATOR_NOT_FOUND', `no operator named ${name}`);
  const get = async (name: string) => {
    const found = await store.get(name);
    if (!found) throw notFound(name);
    return view(found);
  };
  const nameIn = (key: string) => {
    if (!key.startsWith(KEY_PREFIX)) return undefined;
    const name = key.slice(KEY_PREFIX.length, key.lastIndexOf('.'));
    return name.length > 0 && !name.includes('.') ? name : undefined;
  };

  return {
    async create({ name, role, projects }) {
      if (role === 'admin' && projects !== undefined && projects !== '*') {
        throw new AppError('INVALID_BODY', 'an admin has every project: leave out projects or give "*"');
      }
      const key = newKey(name);
      const record: OperatorRecord = { name, role, projects: projects ?? '*', created: now(), keyDigest: credentialKey.digest(key) };
      if (!(await store.insert(record))) throw new AppError('OPERATOR_TAKEN', `an operator named ${name} exists`);
      return { ...view(record), key };
    },
    list: async () => (await store.list()).map(view),
    get,
    async rotateKey(name) {
      const key = newKey(name);
      if (!(await store.setKeyDigest(name, credentialKey.digest(key)))) throw notFound(name);
      return { ...(await get(name)), key };
    },
    async remove(name) {
      if (!(await store.remove(name))) throw notFound(name);
    },
    nameIn,
    async authenticate(key) {
      const name = nameIn(key);
      const found = name === undefined ? undefined : await store.get(name);
      if (!found || !credentialKey.matches(key, found.keyDigest)) return undefined;
      return { kind: 'operator', name: found.name, role: found.role, projects: found.projects };
    },
  };
}
