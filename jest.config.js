// Tests run TypeScript through SWC (type-checking is `tsc --noEmit` in `npm run check`).
// ESM-only packages (the AI SDK and its helpers) are transformed to CommonJS like our own code.
const esmOnly = ['ai', '@ai-sdk', '@openai', 'eventsource-parser', '@standard-schema', '@vercel', 'openai'];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: {
    '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  moduleNameMapper: {
    '^durable-turns$': '<rootDir>/index.ts',
    '^durable-turns/(.*)$': '<rootDir>/$1/index.ts',
  },
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 60_000,
};
