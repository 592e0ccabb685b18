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
 * A test's kind is in its file name:
 * - `*.temporal.test.ts` needs a Temporal server (the suite's shared dev server, or the CLI to start
 *   its own): the `temporal` project, whose global setup starts the server and bundles the workflow;
 * - `*.package.test.ts` packs the package and installs it into a fresh project (an npm install);
 * - any other `*.test.ts` is a unit test, and starts nothing.
 */
const kinds = { temporal: '**/*.temporal.test.ts', package: '**/*.package.test.ts' };

const shared = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
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
  // Once per run: the sources compiled for the tests' child processes (test/support/compile-sources.ts).
  globalSetup: '<rootDir>/test/compile-setup.ts',
  globalTeardown: '<rootDir>/test/compile-teardown.ts',
  testSequencer: '<rootDir>/test/jest/kind-first-sequencer.js',
  reporters: ['default', '<rootDir>/test/jest/slowest-files-reporter.js'],
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/**/*.test.ts', ...Object.values(kinds).map((glob) => `!${glob}`)],
    },
    {
      ...shared,
      displayName: 'temporal',
      testMatch: [`<rootDir>/${kinds.temporal}`],
      // A project's global setup runs only when at least one of its tests is selected.
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
    {
      ...shared,
      displayName: 'package',
      testMatch: [`<rootDir>/${kinds.package}`],
    },
  ],
};
