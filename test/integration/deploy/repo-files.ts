import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** The repository root: docker-compose.yml, the Dockerfiles and infra/ are read from the files CI checks out. */
export const ROOT = resolve(__dirname, '../../..');

export const readRepoFile = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
export const repoPathExists = (path: string): boolean => existsSync(join(ROOT, path));

/** Every file under a folder of the repository, as repository-relative paths with forward slashes. */
export function repoFilesUnder(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.push(relative(ROOT, path).split('\\').join('/'));
    }
  };
  walk(join(ROOT, folder));
  return found;
}

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string };
  restart?: string;
  hostname?: string;
  entrypoint?: string | string[];
  command?: string | string[];
  logging?: { driver?: string; options?: Record<string, string> };
  stop_grace_period?: string;
  mem_limit?: string;
  network_mode?: string;
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  environment?: Record<string, string | number | boolean | null> | string[];
  healthcheck?: { test?: string | string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: (string | { type: string; source?: string; target: string })[];
  ports?: (string | { target: number; published?: string | number; protocol?: string })[];
}

export interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  networks?: Record<string, { internal?: boolean } | null>;
  volumes?: Record<string, unknown>;
}

/** The networks a service joins, by name (short or long syntax). */
export function networksOf(service: ComposeService): string[] {
  const { networks } = service;
  if (networks === undefined) return [];
  return Array.isArray(networks) ? networks : Object.keys(networks);
}

/** Compose durations (`45s`, `1m30s`, `90s`) in seconds. */
export function durationSeconds(duration: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== duration) throw new Error(`not a duration: ${duration}`);
  return parts.reduce((sum, [, value, unit]) => sum + Number(value) * units[unit], 0);
}

/** Byte sizes as Compose and the JVM write them (`512m`, `1g`, `2560m`, `768mb`, `1G`) in bytes. */
export function byteSize(size: string): number {
  const match = /^(\d+)\s*([kmg]?)b?$/i.exec(size.trim());
  if (match === null) throw new Error(`not a size: ${size}`);
  const scale = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match[2].toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(match[1]) * scale;
}

/** docker-compose.yml as Compose reads it: YAML merge keys (`<<: *node`) resolved, `${...}` left as written. */
export function readComposeFile(): unknown {
  return parseYaml(readRepoFile('docker-compose.yml'), { merge: true });
}

export function environmentOf(service: ComposeService): Record<string, string> {
  const entries = Array.isArray(service.environment)
    ? service.environment.map((line) => [line.split('=')[0], line.slice(line.indexOf('=') + 1)])
    : Object.entries(service.environment ?? {}).map(([name, value]) => [name, value === null ? '' : String(value)]);
  return Object.fromEntries(entries);
}

/** Compose interpolation with nothing set in the environment: `${NAME:-default}` gives its default, `$$` a `$`. */
export function withComposeDefaults(value: string): string {
  return value
    .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (_match, _name: string, fallback?: string) => fallback ?? '')
    .replace(/\$\$/g, '$');
}

export interface PortMapping {
  published: number | undefined;
  target: number;
  protocol: 'tcp' | 'udp';
}

/** Short syntax `"8081:8080"`, `"5684:5683/udp"`, or the long syntax. */
export function portsOf(service: ComposeService): PortMapping[] {
  return (service.ports ?? []).map((port) => {
    if (typeof port !== 'string') {
      const published = port.published === undefined ? undefined : Number(port.published);
      return { published, target: port.target, protocol: port.protocol === 'udp' ? 'udp' : 'tcp' };
    }
    const [mapping, protocol] = port.split('/');
    const parts = mapping.split(':');
    return {
      published: parts.length > 1 ? Number(parts[parts.length - 2]) : undefined,
      target: Number(parts[parts.length - 1]),
      protocol: protocol === 'udp' ? 'udp' : 'tcp',
    };
  });
}

/** Host paths of bind mounts: a short-syntax source that is a path (`./infra/...`), or `type: bind`. */
export function bindSourcesOf(service: ComposeService): string[] {
  return (service.volumes ?? []).flatMap((volume) => {
    if (typeof volume !== 'string') return volume.type === 'bind' && volume.source ? [volume.source] : [];
    const source = volume.split(':')[0];
    return /^[./~]/.test(source) ? [source] : [];
  });
}
