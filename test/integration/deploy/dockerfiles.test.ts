import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo, createServer as createNetServer } from 'node:net';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../../src/config/config';
import { copies, execForm, instructions, parseDockerfile, Stage } from './dockerfile';
import { readRepoFile, repoFilesUnder, repoPathExists, ROOT } from './repo-files';

// The images cannot be built here (no Docker engine in CI); these tests hold the Dockerfiles to what the
// repository produces and to the scripts that already run the same servers (infra/*.sh).

const run = promisify(execFile);
const service = parseDockerfile(readRepoFile('Dockerfile'));
const kairosdb = parseDockerfile(readRepoFile('infra/docker/kairosdb.Dockerfile'));
const secretsInit = parseDockerfile(readRepoFile('infra/docker/secrets-init.Dockerfile'));
const runtimeOf = (stages: Stage[]): Stage => stages[stages.length - 1];

/** Paths .dockerignore keeps out of the build context (plain names and folders, no patterns: all it uses). */
const ignored = readRepoFile('.dockerignore')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const isIgnored = (path: string) =>
  ignored.some((entry) => (entry.startsWith('*') ? path.endsWith(entry.slice(1)) : path === entry || path.startsWith(`${entry}/`)));

describe('Dockerfile (service image)', () => {
  const runtime = runtimeOf(service);

  it('runs the file that npm run build emits for src/main.ts', () => {
    const tsconfig = JSON.parse(readRepoFile('tsconfig.json')) as { compilerOptions: { outDir: string; rootDir: string } };
    const build = (JSON.parse(readRepoFile('package.json')) as { scripts: Record<string, string> }).scripts.build;
    const emitted = posix.join(tsconfig.compilerOptions.outDir, posix.relative(tsconfig.compilerOptions.rootDir, 'src/main.js'));

    const cmd = execForm(instructions(runtime, 'CMD')[0].args);

    expect(build).to.equal('tsc -p tsconfig.json');
    expect(repoPathExists('src/main.ts')).to.equal(true);
    expect(cmd).to.deep.equal(['node', emitted]);
    expect(emitted).to.equal('dist/src/main.js');
  });

  it('builds with python3, make and g++ and prunes the devDependencies before the runtime stage copies them', () => {
    const runs = instructions(service[0], 'RUN').map(({ args }) => args).join('\n');

    expect(service).to.have.length(2);
    expect(runs).to.match(/python3 make g\+\+/);
    expect(runs).to.match(/npm ci[\s\S]*npm run build[\s\S]*npm prune --omit=dev/);
    // Node 22 (LTS; Node 20 reached its end of life), an exact version, the same in both stages for the native addon.
    expect(service.map(({ base }) => base)).to.deep.equal(['node:22.12.0-bookworm-slim', 'node:22.12.0-bookworm-slim']);
  });

  it('runs as an unprivileged user with DATA_DIR on the /data volume', () => {
    const user = instructions(runtime, 'USER').at(-1)?.args;
    const env = instructions(runtime, 'ENV').map(({ args }) => args).join(' ');

    expect(user).to.be.a('string').and.not.match(/^(root|0)(:|$)/);
    expect(instructions(runtime, 'VOLUME').map(({ args }) => args)).to.deep.equal(['["/data"]']);
    expect(env).to.match(/\bDATA_DIR=\/data\b/);
  });

  it('exposes HTTP, MQTT and CoAP (udp) on the default ports of src/config/config.ts', () => {
    const defaults = loadConfig({});

    const exposed = instructions(runtime, 'EXPOSE').flatMap(({ args }) => args.split(/\s+/));

    expect(exposed).to.have.members([`${defaults.port}`, `${defaults.mqttPort}`, `${defaults.coapPort}/udp`]);
  });

  it('copies into the runtime image every file of src/ that tsc does not emit', () => {
    const copiedFromContext = copies(runtime)
      .filter(({ from }) => from === undefined)
      .flatMap(({ sources }) => sources);

    const assets = repoFilesUnder('src').filter((path) => !path.endsWith('.ts'));

    for (const asset of assets) {
      expect(copiedFromContext.some((source) => asset === source || asset.startsWith(`${source}/`)), asset).to.equal(true);
    }
  });

  it('copies from the build context only paths that exist and that .dockerignore lets through', () => {
    for (const stages of [service, kairosdb, secretsInit]) {
      for (const { from, sources } of stages.flatMap(copies)) {
        if (from !== undefined) continue;
        for (const source of sources) {
          expect(repoPathExists(source), source).to.equal(true);
          expect(isIgnored(source), `${source} is in .dockerignore`).to.equal(false);
        }
      }
    }
  });
});

describe('infra/docker/healthcheck.js (the service image\'s health probe)', () => {
  const probe = join(ROOT, 'infra/docker/healthcheck.js');
  let server: Server;
  let status = 200;

  beforeEach(async () => {
    server = createServer((request, response) => {
      response.statusCode = request.url === '/healthz' ? status : 404;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const probeExitCode = async (port: number, extra: Record<string, string> = {}) => {
    try {
      const env = { ...process.env, PROXY_PROTOCOL: undefined, PORT: String(port), ...extra };
      await run(process.execPath, [probe], { env, timeout: 10_000 });
      return 0;
    } catch (err) {
      return (err as { code?: number }).code;
    }
  };

  it('exits 0 when GET /healthz on PORT answers 200', async () => {
    status = 200;

    expect(await probeExitCode((server.address() as AddressInfo).port)).to.equal(0);
  });

  it('with PROXY_PROTOCOL=true, sends a PROXY v2 LOCAL header before its request, as the service then requires', async () => {
    const received: Buffer[] = [];
    const raw = createNetServer((socket) => {
      socket.on('data', (chunk) => {
        received.push(chunk);
        // The header is 16 bytes; the request is in once its blank line is.
        if (Buffer.concat(received).subarray(16).includes('\r\n\r\n')) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const port = (raw.address() as AddressInfo).port;

      const code = await probeExitCode(port, { PROXY_PROTOCOL: 'true' });

      const bytes = Buffer.concat(received);
      expect(code).to.equal(0);
      // HAProxy's "The PROXY protocol" 2.2: signature, 0x20 (v2, LOCAL), 0x00 (UNSPEC), length 0.
      expect(bytes.subarray(0, 16).toString('hex')).to.equal('0d0a0d0a000d0a515549540a20000000');
      expect(bytes.subarray(16).toString('latin1')).to.match(/^GET \/healthz HTTP\/1\.1\r\n/);
    } finally {
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  it('exits 1 when /healthz answers anything else, or nothing listens', async () => {
    status = 503;
    const port = (server.address() as AddressInfo).port;

    expect(await probeExitCode(port)).to.equal(1);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server = createServer();
    expect(await probeExitCode(port)).to.equal(1);
  });
});

describe('infra/docker/kairosdb.Dockerfile', () => {
  const entrypoint = readRepoFile('infra/docker/kairosdb-entrypoint.sh');
  const script = readRepoFile('infra/kairosdb.sh');
  const jvmFlags = (text: string) => [...new Set(text.match(/--add-(?:opens|exports)=\S+|-Duser\.timezone=\S+/g))];

  it('fetches KairosDB with infra/kairosdb/pom.xml at the version the infra scripts run', () => {
    const common = readRepoFile('infra/lib/common.sh');
    const scriptVersion = /KAIROSDB_VERSION:=([^}]+)\}/.exec(common)?.[1];
    const args = instructions(kairosdb[0], 'ARG').map(({ args: arg }) => arg);

    expect(kairosdb[0].base).to.equal('maven:3.9.9-eclipse-temurin-17');
    expect(args).to.include(`KAIROSDB_VERSION=${scriptVersion}`);
    expect(copies(kairosdb[0]).flatMap(({ sources }) => sources)).to.deep.equal(['infra/kairosdb/pom.xml']);
    expect(runtimeOf(kairosdb).base).to.equal('eclipse-temurin:17.0.13_11-jre');
  });

  it('starts the JVM with the same --add-opens, --add-exports and time zone as infra/kairosdb.sh', () => {
    expect(jvmFlags(entrypoint)).to.not.be.empty;
    expect(jvmFlags(entrypoint)).to.have.members(jvmFlags(script));
    expect(entrypoint).to.include('org.kairosdb.core.Main -c run -p');
  });

  it('renders every placeholder of infra/kairosdb/kairosdb.properties, each with a default in the image', () => {
    const placeholders = [...new Set(readRepoFile('infra/kairosdb/kairosdb.properties').match(/\$\{[A-Z0-9_]+\}/g))];
    const rendered = /envsubst '([^']+)'/.exec(entrypoint)?.[1].split(/\s+/) ?? [];
    const defaults = instructions(runtimeOf(kairosdb), 'ENV').flatMap(({ args }) => args.match(/[A-Z0-9_]+(?==)/g) ?? []);

    expect(placeholders).to.not.be.empty;
    expect(rendered).to.have.members(placeholders);
    for (const placeholder of placeholders) expect(defaults, placeholder).to.include(placeholder.slice(2, -1));
  });
});

describe('infra/docker shell scripts', () => {
  it('parse as POSIX sh (they run in images without bash)', async () => {
    const scripts = repoFilesUnder('infra/docker').filter((path) => path.endsWith('.sh'));

    expect(scripts).to.have.length.of.at.least(6);
    for (const path of scripts) await run('sh', ['-n', join(ROOT, path)]);
  });

  it('write Mosquitto\'s password file where infra/docker/mosquitto.conf reads it', () => {
    const conf = readRepoFile('infra/docker/mosquitto.conf');
    const start = readRepoFile('infra/docker/mosquitto-start.sh');

    const readFrom = /^password_file\s+(\S+)/m.exec(conf)?.[1];

    expect(readFrom).to.be.a('string');
    expect(start).to.include(`passwd_file=${readFrom}`);
    expect(conf).to.match(/^allow_anonymous false$/m);
  });
});
