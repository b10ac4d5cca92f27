// The layering rules of docs/architecture.md ("Dependency rule"), checked by `npm run lint`.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles (architecture.md, guideline 12).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-only-core',
      comment: 'src/domain and src/ports import no package and nothing outside the two of them.',
      severity: 'error',
      from: { path: '^src/(domain|ports)/' },
      to: { pathNot: '^src/(domain|ports)/' },
    },
    {
      name: 'application-imports-only-core',
      comment: 'The use cases import src/domain, src/ports, each other and node: built-ins only.',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { pathNot: '^src/(domain|ports|application)/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'adapters-not-on-composition',
      comment:
        'Arrows point inward: nothing under src/adapters imports the composition, the CLI or the executables, which are built on the adapters.',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/(composition/|cli/|cli\\.ts$|main\\.ts$)' },
    },
    {
      name: 'adapters-own-their-options',
      comment: 'Adapters take their options as arguments; only the composition reads src/config.',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/config/' },
    },
    {
      name: 'adapters-only-from-the-edges',
      comment:
        'Only the composition, the configuration, the CLI, the executables and the library entries import an adapter.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: '^src/(adapters|composition|config|cli)/|^src/(main|cli|index|core)\\.ts$',
      },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'cli-only-from-the-executables',
      comment: 'The command line is built on the rest: only src/cli, cli.ts and main.ts import it.',
      severity: 'error',
      from: { pathNot: '^src/cli/|^src/(cli|main)\\.ts$' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'inversify-only-in-composition',
      comment: 'Only the composition root imports inversify.',
      severity: 'error',
      from: { pathNot: '^src/composition/' },
      to: { path: '(^|node_modules/)(inversify|@inversifyjs/[^/]+)($|/)' },
    },
    {
      name: 'koa-only-in-http-adapter',
      comment: 'Only adapters/http imports Koa and its middleware.',
      severity: 'error',
      from: { pathNot: '^src/adapters/http/' },
      to: { path: '(^|node_modules/)(koa|koa-[^/]+|@koa/[^/]+)($|/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Relative imports carry `.js` (NodeNext); the TypeScript sources are what they name.
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
