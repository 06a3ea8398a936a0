import path from 'node:path';
import { buildModuleGraph, describeCycle, findCycles } from '../helpers/module-graph';

// STYLE.md: dependencies point one way. A cycle, even through a type-only import, means no file of
// it can be read alone; the checker itself is proven in module-graph-checker.test.ts. Files are
// split by meaning, not by a line count: what keeps one kind of ledger write in one file is
// entry-kinds.test.ts.

const SRC = path.resolve(__dirname, '../../src');

describe('src/ module graph', () => {
  const graph = buildModuleGraph(SRC);

  it('resolves every relative import, so no edge is missing from the graph', () => {
    expect(graph.unresolved).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(findCycles(graph).map(describeCycle)).toEqual([]);
  });
});
