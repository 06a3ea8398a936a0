import fs from 'node:fs';
import path from 'node:path';
import { ENTRY_KINDS } from '../../src/db/schema';
import { standardKinds } from '../../src/ledger/kinds/registry';

// A kind of ledger write is one file under src/ledger/kinds/ (docs/architecture.md): nothing else
// in src/ names a kind, so nothing else can switch on one, and a new kind is one new file and one
// registration. The schema's enum and its partial indexes are the one other place a kind's name
// is written (the database's own rules); src/clients/ is an outside system's vocabulary, where a
// word such as RPC's `trustline` ledger key may coincide. So is an approval's action (`issue`:
// create-asset's request), named once in src/domain/approval-lifecycle.ts, which no kind reads, and
// a Stellar operation's name (`clawback`, a movement the ledger follower reads), named once in
// src/domain/ledger-movement.ts.

const SRC = path.resolve(__dirname, '../../src');
const KINDS_DIR = path.join(SRC, 'ledger/kinds');
const SCHEMA = path.join(SRC, 'db/journal-schema.ts');
/** Another concept's word that coincides with a kind's name, in the one file that writes it. */
const COINCIDING: Record<string, string> = { issue: 'domain/approval-lifecycle.ts', clawback: 'domain/ledger-movement.ts' };
const kinds = standardKinds();

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(full);
    return d.name.endsWith('.ts') ? [full] : [];
  });
}

/** Files of src/ that write `name` as a string literal ('name', "name" or `name`). */
function filesNaming(name: string): string[] {
  const literal = new RegExp(`(['"\`])${name}\\1`);
  return sourceFiles(SRC)
    .filter((file) => !file.startsWith(path.join(SRC, 'clients') + path.sep))
    .filter((file) => literal.test(fs.readFileSync(file, 'utf8')))
    .map((file) => path.relative(SRC, file));
}

/** The file under kinds/ that defines the kind (`name: '<kind>'`). */
function homeOf(name: string): string[] {
  return sourceFiles(KINDS_DIR)
    .filter((file) => fs.readFileSync(file, 'utf8').includes(`name: '${name}'`))
    .map((file) => path.relative(SRC, file));
}

describe('entry kinds', () => {
  it('registers exactly the kinds of the schema', () => {
    expect([...kinds.names].sort()).toEqual([...ENTRY_KINDS].sort());
  });

  it.each([...ENTRY_KINDS])("names %s only in its own file under src/ledger/kinds/ and in the schema", (name) => {
    const home = homeOf(name);
    expect(home).toHaveLength(1);
    expect(filesNaming(name).filter((file) => file !== home[0] && file !== path.relative(SRC, SCHEMA) && file !== COINCIDING[name])).toEqual([]);
  });

  it("lists as records the kinds the schema's record indexes cover, in their order, so the lists' SQL is the indexes' predicate", () => {
    const schema = fs.readFileSync(SCHEMA, 'utf8');
    const predicates = [...schema.matchAll(/index\('ledger_entries_(?:user_|to_)?records_idx'\)[^\n]*kind in \(([^)]*)\)/g)].map((m) => m[1]!.split(',').map((k) => k.trim().replace(/'/g, '')));
    // By owner, every owner's, and by the wallet they reached (the user lists' second branch).
    expect(predicates).toHaveLength(3);
    for (const listed of predicates) expect(listed).toEqual(kinds.recordKinds);
  });

  it('refuses a kind registered twice and a name no kind has', () => {
    const twice = standardKinds();
    expect(() => twice.register(twice.of(kinds.names[0]!))).toThrow(/registered twice/);
    expect(() => twice.of('no_such_kind')).toThrow(/no entry kind no_such_kind/);
  });
});
