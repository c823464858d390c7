// Jest runs every *.test.ts under src/ and test/ (`npm test` runs scripts/run-tests.mjs,
// which provides the services first and then runs jest). The files run as native ES
// modules (--experimental-vm-modules, set by the runner and `npm run test:jest`); @swc/jest
// strips the types and leaves the imports as ESM.

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json', 'node'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  // Two files at a time: each file has its own database, queue prefix, data folder and
  // free ports, and most of a file's time is spent waiting on the servers it starts
  // (gateways, SFTP and mail servers, PostgreSQL clusters), so two run side by side in
  // about 14 minutes where one at a time took about 33 on this 2-core machine.
  // TEST_WORKERS=1 npm test runs them one at a time.
  maxWorkers: 2,
  // A limit this low gives every file a fresh worker process, so no file inherits another's
  // threads, native modules (libxmljs2 loads in one thread of a process only) or timers.
  workerIdleMemoryLimit: '1MB',
  testTimeout: 300_000,
};
