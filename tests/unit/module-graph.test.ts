import path from 'node:path';
import { buildModuleGraph, describeCycle, findCycles, oversizedFiles } from '../helpers/module-graph';

// STYLE.md: dependencies point one way, and no file runs past ~300 lines. A cycle, even through a
// type-only import, means no file of it can be read alone; the checker itself is proven in
// module-graph-checker.test.ts.

const SRC = path.resolve(__dirname, '../../src');
const MAX_LINES = 300;

describe('src/ module graph', () => {
  const graph = buildModuleGraph(SRC);

  it('resolves every relative import, so no edge is missing from the graph', () => {
    expect(graph.unresolved).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(findCycles(graph).map(describeCycle)).toEqual([]);
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    expect(oversizedFiles(SRC, MAX_LINES).map(({ file, lines }) => `${file}: ${lines} lines`)).toEqual([]);
  });
});
