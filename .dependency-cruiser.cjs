// The layering of the service, checked on every `npm test`. Each rule names
// the arrow it forbids; a violation prints the file and the rule.
// Layers (packages/payrail/src): domain <- store, providers <- flows <- http, web, worker, cli.
const SRC = '^packages/payrail/src/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-nothing-of-ours',
      comment: 'domain/ holds pure rules: it may import only other domain modules.',
      severity: 'error',
      from: { path: `${SRC}domain/` },
      to: { path: `${SRC}(?!domain/)` },
    },
    {
      name: 'domain-does-no-io',
      comment: 'domain/ does no I/O: no file system, network, processes or threads.',
      severity: 'error',
      from: { path: `${SRC}domain/` },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|net|http|https|http2|tls|dgram|dns|child_process|cluster|worker_threads|readline|process)$',
      },
    },
    {
      name: 'only-store-opens-databases',
      comment: 'Database drivers are imported by store/ alone.',
      severity: 'error',
      from: { path: '^packages/', pathNot: `${SRC}store/` },
      to: { path: 'node_modules/(better-sqlite3|postgres)/' },
    },
    {
      name: 'store-internals-stay-in-store',
      comment: "The adapters, group commit and migrations are the store's own; others use store functions.",
      severity: 'error',
      from: { path: SRC, pathNot: `${SRC}store/` },
      to: { path: `${SRC}store/(sqlite|postgres|group-commit|migrations/)` },
    },
    {
      name: 'store-depends-only-on-domain',
      comment: 'store/ knows rows and SQL; it never calls business flows, connectors or the wire layers.',
      severity: 'error',
      from: { path: `${SRC}store/` },
      to: { path: `${SRC}(flows|http|web|worker|cli|providers|crypto)/` },
    },
    {
      name: 'connectors-get-no-database',
      comment: 'providers/ are connectors: they get only their own settings, never the store or the flows.',
      severity: 'error',
      from: { path: `${SRC}providers/` },
      to: { path: `${SRC}(store|flows|http|web|worker|cli)/|${SRC}(config|runtime|service)\\.ts$` },
    },
    {
      name: 'flows-never-import-simulators',
      comment: 'Flows talk to connector interfaces; which one is plugged in (a sandbox simulator or a real one) is configuration.',
      severity: 'error',
      from: { path: `${SRC}flows/` },
      to: { path: `${SRC}providers/(sandbox/|card-processor-sandbox)` },
    },
    {
      name: 'flows-never-import-the-edges',
      comment: 'Flows are called by the HTTP layer, the panel, the worker and the CLI, never the other way round.',
      severity: 'error',
      from: { path: `${SRC}flows/` },
      to: { path: `${SRC}(http|web|worker|cli)/` },
    },
    {
      name: 'http-and-web-reach-data-through-flows',
      comment: 'Routes and pages call flows; they never touch the store or a simulator.',
      severity: 'error',
      from: { path: `${SRC}(http|web)/` },
      to: { path: `${SRC}store/|${SRC}providers/(sandbox/|card-processor-sandbox)` },
    },
    {
      name: 'worker-runs-flows-only',
      comment: 'The worker schedules flows; the work itself lives in flows.',
      severity: 'error',
      from: { path: `${SRC}worker/` },
      to: { path: `${SRC}(store|providers|http|web|cli|crypto)/` },
    },
    {
      name: 'cli-calls-flows',
      comment: 'The CLI calls flows (and starts the server or worker); it never reads the store or the panel directly.',
      severity: 'error',
      from: { path: `${SRC}cli/` },
      to: { path: `${SRC}(store|web)/` },
    },
    {
      name: 'sdk-imports-nothing-of-the-server',
      comment: 'The SDK ships on its own: it may not import server code.',
      severity: 'error',
      from: { path: '^packages/client/' },
      to: { path: '^packages/(?!client/)' },
    },
    {
      name: 'no-cycles',
      comment: 'A cycle means two modules own one concern.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
