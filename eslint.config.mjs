import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers (docs/architecture.md): routes -> services -> repositories, clients and the ledger
 * journal, never upward and never skipping to what a lower layer owns. Type-only imports are
 * allowed (a route may name a repository's row type). The sandboxes are outside systems, npm
 * workspaces under packages/: the composition root loads them with import(), only when embedded,
 * and they import nothing of the service.
 */
const layer = (files, forbidden, message) => ({
  files,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: forbidden, message, allowTypeImports: true }] }],
  },
});
const SANDBOXES = ['@wallet/*', '**/packages/**'];
const HTTP = ['**/routes/**', '**/http/**', '**/middleware/**', '**/app'];
const boundaries = [
  // First, so the layers below (which forbid the sandboxes too) take precedence for their files.
  layer(['src/**/*.ts'], SANDBOXES, 'the service loads a sandbox with import(), only when it is embedded (container.ts); types may be imported'),
  layer(['src/routes/**/*.ts'], ['**/db/**', '**/clients/**', '**/ledger/**', '@stellar/stellar-sdk', ...SANDBOXES], 'routes call services: no repository, client, journal or SDK below them'),
  layer(
    ['src/services/**/*.ts'],
    [...HTTP, ...SANDBOXES, '@stellar/stellar-sdk', '**/clients/horizon.client', '**/clients/rpc.client', '**/clients/ledger-api', '**/ledger/*', '!**/ledger/token-reads', '!**/ledger/ledger-bootstrap', '!**/ledger/write-command', '!**/ledger/ledger-error-map', '!**/ledger/kinds', '!**/ledger/kinds/*'],
    'services reach the ledger module through its doors only (TokenReads, the journal writes of ledger-bootstrap, the write command and each kind\'s command in ledger/kinds/, the error map), and know nothing of HTTP',
  ),
  layer(['src/ledger/**/*.ts'], [...HTTP, '**/services/**', ...SANDBOXES], 'the ledger journal sits below the services and HTTP'),
  layer(['src/db/**/*.ts'], [...HTTP, '**/services/**', '**/ledger/**', '**/clients/**', ...SANDBOXES], 'repositories sit at the bottom'),
  layer(['src/clients/**/*.ts'], [...HTTP, '**/services/**', '**/ledger/**', '**/db/**', ...SANDBOXES], 'a client only talks to its outside system'),
  layer(['src/domain/**/*.ts', 'src/errors/**/*.ts', 'src/security/**/*.ts', 'src/views/**/*.ts'], [...HTTP, '**/services/**', '**/ledger/**', '**/db/**', '**/clients/**', ...SANDBOXES], 'shared building blocks import no layer'),
  // A workspace imports only its own files and npm packages: never the service's src/ (nor its
  // tests). The patterns match the import text, so one rule per folder depth inside the package:
  // from packages/NAME/src/file.ts, '../../' already leaves it.
  ...[0, 1, 2, 3, 4].map((depth) =>
    layer([`packages/*/${'*/'.repeat(depth)}*.ts`], [`${'../'.repeat(depth + 1)}**`], 'a sandbox is an outside system: a workspace imports nothing of the service'),
  ),
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.data/', 'coverage/', 'drizzle/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...boundaries,
);
