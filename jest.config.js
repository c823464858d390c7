// Jest runs the test files listed here (the rest still run on node:test; scripts/run-tests.mjs
// hands these to jest). They run as native ES modules (--experimental-vm-modules, set by
// `npm run test:jest` and the runner); @swc/jest strips the types and leaves the imports as ESM.

/** Test files moved to jest, relative to the project root. */
export const JEST_TEST_FILES = [
  'src/bankid/hint-codes.test.ts',
  'src/bankid/qr-code.test.ts',
  'src/bankid/signatory-check.test.ts',
  'src/channels/inbox-turn.test.ts',
  'src/channels/mail/mail-attachments.test.ts',
  'src/channels/mail/mail-authentication.test.ts',
  'src/channels/remote-sftp/remote-file-name.test.ts',
  'src/channels/ssek/ssek-parties.test.ts',
  'src/cli/gateway-logger.test.ts',
  'src/config/load-config.test.ts',
  'src/config/secret-hash.test.ts',
  'src/core/access.policy.test.ts',
  'src/core/agreement-contacts.rules.test.ts',
  'src/core/annual-report-deadlines.test.ts',
  'src/core/banking-calendar.test.ts',
  'src/core/billing.rules.test.ts',
  'src/core/charges/charges.test.ts',
  'src/core/cost-and-charges.rules.test.ts',
  'src/core/coverages-in-quarter.test.ts',
  'src/core/death-benefit.test.ts',
  'src/core/debit-run.test.ts',
  'src/core/document-keys.test.ts',
  'src/core/employment-change.rules.test.ts',
  'src/core/identifiers.test.ts',
  'src/core/insurance-application.rules.test.ts',
  'src/core/payout-plan.test.ts',
  'src/core/payout-start.test.ts',
  'src/core/person-history.test.ts',
  'src/core/plan-application.rules.test.ts',
  'src/core/plan-rules.test.ts',
  'src/core/premium.rules.test.ts',
  'src/core/report-deadlines.test.ts',
  'src/core/transfer.rules.test.ts',
  'src/core/withdrawal-account.rules.test.ts',
  'src/core/withdrawal-information.rules.test.ts',
  'src/core/withdrawal-request.rules.test.ts',
  'src/http/console/html.test.ts',
  'src/http/console/message-filter.test.ts',
  'src/http/console/per-minute-chart.test.ts',
  'src/http/console/xml-view.test.ts',
  'src/ledger/document-store.test.ts',
  'src/ledger/process-lock.test.ts',
  'src/messages/catalogue.test.ts',
  'src/messages/custodian-reporting/custodian-report.test.ts',
  'src/messages/custodian-reporting/record-reader.test.ts',
  'src/messages/header-message-id.test.ts',
  'src/messages/root-element.test.ts',
  'src/messages/schema-registry.test.ts',
  'src/messages/validation-thread.test.ts',
  'src/messages/xml-gate.test.ts',
  'src/pipeline/apply-round.test.ts',
  'src/pipeline/carry-on.scheduler.test.ts',
  'src/pipeline/hand-off.test.ts',
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
