import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { turnSearchAttributeList } from '../contract/search-attributes';
import { connectionConfigFromEnv, connectionEnvVariables } from '../devserver/connection-config';

// Docker cannot run here, so this reads docker-compose.yml the way compose would (with an empty
// host environment, so every `${VAR:-default}` takes its default) and checks that the pieces fit.

const stringList = z.array(z.string());
const serviceSchema = z.object({
  image: z.string().optional(),
  build: z.object({ context: z.string(), dockerfile: z.string() }).optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
  environment: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  ports: stringList.optional(),
  healthcheck: z.object({ test: stringList }).optional(),
  entrypoint: stringList.optional(),
  command: stringList.optional(),
});
const composeSchema = z.object({ services: z.record(z.string(), serviceSchema) });

const root = path.join(__dirname, '..');
const compose = composeSchema.parse(parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')));

/** Compose's `${NAME:-default}` / `${NAME}` interpolation, against an empty host environment. */
function interpolate(value: string | number): string {
  return String(value).replace(
    /\$\{([A-Z_]+)(?::-([^}]*))?\}/g,
    (_, _name: string, fallback?: string) => fallback ?? '',
  );
}

function service(name: string) {
  const found = compose.services[name];
  if (found === undefined) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

function environment(name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service(name).environment ?? {}).map(([key, value]) => [key, interpolate(value)]),
  );
}

function flagValues(args: readonly string[], flag: string): string[] {
  return args.flatMap((arg, index) => (arg === flag ? [args[index + 1] ?? ''] : []));
}

const worker = () => connectionConfigFromEnv(environment('worker'));

test('the cluster has PostgreSQL, Temporal, its UI, the admin tools and the worker', () => {
  expect(Object.keys(compose.services).sort()).toEqual(
    ['postgresql', 'temporal', 'temporal-admin-tools', 'temporal-ui', 'worker'].sort(),
  );
  expect(service('postgresql').image).toBe('postgres:16');
  expect(service('temporal').image).toMatch(/^temporalio\/auto-setup:/);
  expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:/);
});

test('Temporal persists to the PostgreSQL service', () => {
  expect(environment('temporal')).toMatchObject({
    DB: 'postgres12',
    POSTGRES_SEEDS: 'postgresql',
    POSTGRES_USER: environment('postgresql').POSTGRES_USER,
    POSTGRES_PWD: environment('postgresql').POSTGRES_PASSWORD,
  });
});

test('the worker is configured through the variables connectionConfigFromEnv reads, pointing at the temporal service', () => {
  expect(worker()).toEqual({ address: 'temporal:7233', namespace: 'default', taskQueue: 'durable-turns' });
  // A misspelled variable would be ignored silently; the ones for connections must all be known.
  const connectionVariables = Object.keys(environment('worker')).filter((key) =>
    /^(TEMPORAL|DURABLE_TURNS)_/.test(key),
  );
  expect(connectionEnvVariables).toEqual(expect.arrayContaining(connectionVariables));
  expect(environment('temporal-ui').TEMPORAL_ADDRESS).toBe('temporal:7233');
  expect(environment('temporal-admin-tools').TEMPORAL_ADDRESS).toBe('temporal:7233');
});

test('the namespace the worker uses is the one auto-setup creates, the healthcheck waits for and the attributes go to', () => {
  const { namespace } = worker();
  expect(environment('temporal').DEFAULT_NAMESPACE).toBe(namespace);
  expect(flagValues((service('temporal').healthcheck?.test ?? []).map(interpolate), '--namespace')).toEqual([
    namespace,
  ]);
  expect(flagValues((service('temporal-admin-tools').command ?? []).map(interpolate), '--namespace')).toEqual(
    [namespace],
  );
});

test('every turn search attribute is registered with its type', () => {
  const admin = service('temporal-admin-tools');
  expect(admin.entrypoint).toEqual(['temporal']);
  const args = admin.command ?? [];
  expect(args.slice(0, 3)).toEqual(['operator', 'search-attribute', 'create']);
  const names = flagValues(args, '--name');
  const types = flagValues(args, '--type');
  const registered = names.map((name, index) => ({ name, type: types[index] }));
  expect(registered).toEqual(turnSearchAttributeList.map(({ name, type }) => ({ name, type })));
});

test('the worker starts only once Temporal is healthy and the search attributes exist', () => {
  expect(service('worker').depends_on).toEqual({
    temporal: { condition: 'service_healthy' },
    'temporal-admin-tools': { condition: 'service_completed_successfully' },
  });
  expect(service('temporal').depends_on).toEqual({ postgresql: { condition: 'service_healthy' } });
  expect(service('temporal-ui').depends_on).toHaveProperty('temporal');
  expect(service('temporal-admin-tools').depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
});

test('every service another one waits on as healthy has a healthcheck', () => {
  const awaitedHealthy = Object.values(compose.services).flatMap((s) =>
    Object.entries(s.depends_on ?? {})
      .filter(([, dependency]) => dependency.condition === 'service_healthy')
      .map(([name]) => name),
  );
  for (const name of new Set(awaitedHealthy))
    expect(service(name).healthcheck?.test.length).toBeGreaterThan(0);
});

test('the gRPC port and the UI are published on loopback only', () => {
  expect(service('temporal').ports).toEqual(['127.0.0.1:7233:7233']);
  expect(service('temporal-ui').ports).toEqual(['127.0.0.1:8080:8080']);
  expect(service('postgresql').ports).toBeUndefined();
});

test('the worker image is built from the repository Dockerfile and runs the built worker', () => {
  expect(service('worker').build).toEqual({ context: '.', dockerfile: 'Dockerfile' });
  const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  expect(dockerfile).toMatch(/^FROM node:20-slim/m);
  expect(dockerfile).toContain('RUN npm ci');
  expect(dockerfile).toContain('npm run build');
  expect(dockerfile).toContain('CMD ["node", "dist/cli/worker-main.js"]');
  const ignored = readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
  expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.state', '.git']));
});
