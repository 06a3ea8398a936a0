import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildModuleGraph, describeCycle, findCycles, moduleSpecifiers } from '../helpers/module-graph';

// tests/unit/module-graph.test.ts holds src/ to no import cycles. This proves the checker it uses
// bites: on small trees written to a temporary folder, every kind of import is an edge and a cycle
// is reported as a path.

function writeTree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'module-graph-'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

const cyclesIn = (files: Record<string, string>) => findCycles(buildModuleGraph(writeTree(files))).map(describeCycle);

describe('module graph checker', () => {
  it('reports a cycle closed by a type-only import, as a path back to its start', () => {
    const cycles = cyclesIn({
      'a.ts': "import { b } from './b';\nexport type A = { b: typeof b };\n",
      'b.ts': "import type { A } from './a';\nexport const b = 1;\nexport type B = A;\n",
      'c.ts': "import { b } from './b';\nexport const c = b;\n",
    });

    expect(cycles).toEqual(['a.ts -> b.ts -> a.ts']);
  });

  it('reports a cycle closed by `export type { X } from` and `import { type X }`', () => {
    const cycles = cyclesIn({
      'c.ts': "export type { D } from './d';\nexport type C = string;\n",
      'd.ts': "import { type C } from './c';\nexport type D = C;\n",
    });

    expect(cycles).toEqual(['c.ts -> d.ts -> c.ts']);
  });

  it.each([
    ['import', "import { b } from './b';"],
    ['import type', "import type { B } from './b';"],
    ['import { type X }', "import { type B } from './b';"],
    ['a side-effect import', "import './b';"],
    ['export * from', "export * from './b';"],
    ['export { x } from', "export { b } from './b';"],
    ['export type { X } from', "export type { B } from './b';"],
    ['a dynamic import()', "export const load = () => import('./b');"],
    ['require()', "export const b = require('./b');"],
    ['import x = require()', "import b = require('./b');\nexport const x = b;"],
    ['an import type in a type position', "export type B = import('./b').B;"],
  ])('counts %s as an edge', (_kind, edge) => {
    const cycles = cyclesIn({ 'a.ts': `${edge}\n`, 'b.ts': "import { a } from './a';\nexport const b = a;\n" });

    expect(cycles).toEqual(['a.ts -> b.ts -> a.ts']);
  });

  it('resolves a folder to its index.ts and follows a longer cycle through it', () => {
    const cycles = cyclesIn({
      'a.ts': "import { b } from './lib';\nexport const a = b;\n",
      'lib/index.ts': "export { b } from './b';\n",
      'lib/b.ts': "import { c } from '../c';\nexport const b = c;\n",
      'c.ts': "import type { A } from './a';\nexport const c = 1;\n",
    });

    expect(cycles).toEqual(['a.ts -> lib/index.ts -> lib/b.ts -> c.ts -> a.ts']);
  });

  it('reports a file that imports itself', () => {
    expect(cyclesIn({ 'a.ts': "import type { A } from './a';\nexport type A = string;\n" })).toEqual(['a.ts -> a.ts']);
  });

  it('shows each way round a component of several cycles', () => {
    const cycles = cyclesIn({
      'a.ts': "import './b';\nimport './c';\n",
      'b.ts': "import './a';\n",
      'c.ts': "import './a';\n",
    });

    expect(cycles.sort()).toEqual(['a.ts -> b.ts -> a.ts', 'a.ts -> c.ts -> a.ts']);
  });

  it('finds no cycle where imports only point one way, and ignores package imports', () => {
    const cycles = cyclesIn({
      'a.ts': "import { z } from 'zod';\nimport { b } from './b';\nimport { c } from './c';\nexport const a = [z, b, c];\n",
      'b.ts': "import { c } from './c';\nexport const b = c;\n",
      'c.ts': "import fs from 'node:fs';\nexport const c = fs;\n",
    });

    expect(cycles).toEqual([]);
  });

  it('names a relative import that resolves to no file, so a missed edge cannot hide a cycle', () => {
    const graph = buildModuleGraph(writeTree({ 'a.ts': "import { gone } from './gone';\nexport const a = gone;\n" }));

    expect(graph.unresolved).toEqual(["a.ts: './gone'"]);
  });

  it('ignores module names in comments and ordinary strings', () => {
    const text = "// import { b } from './b';\nexport const s = \"require('./b')\";\n";

    expect(moduleSpecifiers('a.ts', text)).toEqual([]);
  });
});
