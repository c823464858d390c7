// Jest runs the test files listed here (the rest still run on node:test; scripts/run-tests.mjs
// hands these to jest). They run as native ES modules (--experimental-vm-modules, set by
// `npm run test:jest` and the runner); @swc/jest strips the types and leaves the imports as ESM.

/** Test files moved to jest, relative to the project root. */
export const JEST_TEST_FILES = [
  'src/core/plan-rules.test.ts',
  'src/messages/schema-registry.test.ts',
  'test/embedded.test.ts',
  'test/remote-sftp.test.ts',
];

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  testMatch: JEST_TEST_FILES.map((file) => `<rootDir>/${file}`),
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json', 'node'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  // The tests start real servers: one file at a time, as on node:test.
  maxWorkers: 1,
  // libxmljs2 loads in one thread of a process only ("Module did not self-register" when a
  // file loads the schemas after an earlier file's validation thread did): a limit this low
  // gives every file a fresh worker process.
  workerIdleMemoryLimit: '1MB',
  testTimeout: 300_000,
};
