// Tests run TypeScript through SWC (type-checking is `tsc --noEmit` in `npm run check`).
// ESM-only packages (the AI SDK and its helpers) are transformed to CommonJS like our own code.
// zod ships both, but AI SDK 7 imports `zod/v4/locales/en.js` by file, which is its ESM build.
const esmOnly = [
  'ai',
  '@ai-sdk',
  '@openai',
  'eventsource-parser',
  '@standard-schema',
  '@vercel',
  '@workflow',
  'openai',
  'zod',
  // @fastify/static's own content-disposition is ESM-only (Node loads it with require(esm); jest
  // needs it transformed, and the pattern reaches it only through its parent).
  '@fastify/static',
  'content-disposition',
];

/**
 * Tests that need a Temporal server (the suite's shared dev server, or the CLI to start their
 * own). Everything else is a unit test: it runs in the `unit` project, which starts nothing.
 */
const needsTemporal = [
  '<rootDir>/test/temporal/',
  '<rootDir>/test/examples/in-code.test.ts',
  '<rootDir>/test/chaos/worker-kills.test.ts',
  '<rootDir>/test/conformance/temporal.test.ts',
  '<rootDir>/test/fuzz/provider-fuzz-temporal.test.ts',
  '<rootDir>/devserver/ensure-temporal.test.ts',
  '<rootDir>/devserver/start-dev-server.test.ts',
  '<rootDir>/test/cli/',
  '<rootDir>/workflows/fleet-health-workflow.test.ts',
  '<rootDir>/tracing/turn-traces.test.ts',
  '<rootDir>/dashboard/dashboard-api.test.ts',
  '<rootDir>/dashboard/dashboard-pages.test.ts',
];

const shared = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>'],
  transform: {
    '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  moduleNameMapper: {
    '^durable-turns$': '<rootDir>/index.ts',
    '^durable-turns/sqlite$': '<rootDir>/executors/journal/sqlite-index.ts',
    '^durable-turns/(.*)$': '<rootDir>/$1/index.ts',
  },
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/test/package/', ...needsTemporal],
    },
    {
      ...shared,
      displayName: 'temporal',
      testMatch: needsTemporal.map((p) => (p.endsWith('/') ? `${p}**/*.test.ts` : p)),
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
      // A project's global setup runs only when at least one of its tests is selected.
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
    {
      ...shared,
      // Packs the package and installs it into a fresh project: slow (an npm install), no server.
      displayName: 'package',
      testMatch: ['<rootDir>/test/package/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    },
  ],
};
