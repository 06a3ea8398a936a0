import path from 'node:path';
import { ESLint } from 'eslint';

// docs/architecture.md: routes -> services -> repositories, clients and the journal. The ESLint
// boundary rules (eslint.config.mjs) keep that true; this proves each rule bites, on code that
// imports upward, linted as if it lived in the layer.

const root = path.resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function restrictedImports(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

describe('layer boundaries', () => {
  it.each([
    ['a repository importing a service', 'src/db/repositories/user.repository.ts', "import { UserService } from '../../services/user.service';\nexport const x = UserService;"],
    ['a service importing the Horizon client', 'src/services/user.service.ts', "import { HorizonClient } from '../clients/horizon.client';\nexport const x = HorizonClient;"],
    ['a service importing the RPC client', 'src/services/user.service.ts', "import { RpcClient } from '../clients/rpc.client';\nexport const x = RpcClient;"],
    ['a service importing the journal below its bootstrap', 'src/services/user.service.ts', "import { Journal } from '../ledger/journal';\nexport const x = Journal;"],
    ['a service importing a submitter', 'src/services/user.service.ts', "import { AccountSubmitter } from '../ledger/account-submitter';\nexport const x = AccountSubmitter;"],
    ['a service importing the SDK', 'src/services/user.service.ts', "import { Operation } from '@stellar/stellar-sdk';\nexport const x = Operation;"],
    ['a route importing a repository', 'src/routes/users.routes.ts', "import { UserRepository } from '../db/repositories/user.repository';\nexport const x = UserRepository;"],
    ['the journal importing a route', 'src/ledger/journal.ts', "import { ledgerRoutes } from '../routes/ledger.routes';\nexport const x = ledgerRoutes;"],
    ['a client importing the database', 'src/clients/rpc.client.ts', "import { users } from '../db/schema';\nexport const x = users;"],
    ['the sandbox importing the service', 'packages/horizon-sandbox/src/routes.ts', "import { createLogger } from '../../../src/logger';\nexport const x = createLogger;"],
    ['the service loading a sandbox statically', 'src/container.ts', "import { createHorizonSandbox } from '@wallet/horizon-sandbox';\nexport const x = createHorizonSandbox;"],
    ['a sandbox\'s test importing the service\'s test helpers', 'packages/paystack-sandbox/tests/checkout.test.ts', "import { launchBrowser } from '../../../tests/helpers/browser';\nexport const x = launchBrowser;"],
  ])('refuses %s', async (_what, file, code) => {
    expect(await restrictedImports(file, code)).toHaveLength(1);
  });

  it.each([
    ['a service importing TokenReads', 'src/services/user.service.ts', "import { TokenReads } from '../ledger/token-reads';\nexport const x = TokenReads;"],
    ['a service naming the journal\'s writes and a command', 'src/services/user.service.ts', "import type { JournalWrites } from '../ledger/ledger-bootstrap';\nimport type { WriteCommand } from '../ledger/write-command';\nexport type X = [JournalWrites, WriteCommand];"],
    ['the composition root naming a sandbox type', 'src/container.ts', "import type { HorizonSandbox } from '@wallet/horizon-sandbox';\nexport type X = HorizonSandbox;"],
    ['a sandbox importing its own files', 'packages/horizon-sandbox/src/operations/payment.ts', "import { LedgerDelta } from '../ledger-delta';\nexport const x = LedgerDelta;"],
    ['a route naming a repository row type', 'src/routes/users.routes.ts', "import type { RecordRow } from '../db/repositories/transaction.repository';\nexport type X = RecordRow;"],
  ])('allows %s', async (_what, file, code) => {
    expect(await restrictedImports(file, code)).toEqual([]);
  });
});
