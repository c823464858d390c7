// `npm run lint` checks the imports of src/ with dependency-cruiser: no circle, type-only
// imports included (eslint's import-x/no-cycle leaves those out), and no import from a
// folder to one above it. The layers, top to bottom (docs/architecture.md, *The map*):
const LAYERS = [
  ['command', '^src/(cli\\.ts|cli/)'],
  ['composition root', '^src/app\\.ts$'],
  ['HTTP', '^src/http/'],
  ['requests', '^src/requests/'],
  ['calendar', '^src/calendar/'],
  ['pipeline', '^src/pipeline/'],
  ['channels', '^src/channels/'],
  ['BankID', '^src/bankid/'],
  ['observability', '^src/observability/'],
  ['config', '^src/config/'],
  ['demo data', '^src/demo/'],
  ['documents', '^src/documents/'],
  ['messages', '^src/messages/'],
  ['ledger', '^src/ledger/'],
  ['core', '^src/core/'],
];

const upward = LAYERS.slice(1).map(([name, path], index) => ({
  name: `no-import-up-from-${name.replaceAll(' ', '-')}`,
  comment: `${name} imports only from the layers below it`,
  severity: 'error',
  from: { path, pathNot: '\\.test\\.ts$' },
  to: { path: LAYERS.slice(0, index + 1).map(([, above]) => `(${above})`).join('|') },
}));

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import circle, type-only imports counted',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { circular: true },
    },
    {
      name: 'in-a-layer',
      comment: 'every file of src/ belongs to a layer',
      severity: 'error',
      from: { path: '^src/', pathNot: [...LAYERS.map(([, path]) => path), '\\.test\\.ts$'] },
      to: {},
    },
    ...upward,
  ],
  options: {
    includeOnly: '^src/',
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
