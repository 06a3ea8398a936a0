import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// The import graph of a source tree, as the TypeScript compiler parses it, its cycles and its
// oversized files. Type-only imports count as edges: they still make a reader hold both files at
// once, and they turn into runtime cycles the day someone drops the `type`.

export interface ModuleGraph {
  /** Every .ts file under the root, relative to it with `/` separators, sorted. */
  files: string[];
  /** A file -> the files under the root it imports, each once. */
  imports: Map<string, string[]>;
  /** `file: 'specifier'` for relative imports that name no file: an edge the graph could not see. */
  unresolved: string[];
}

/** Every module a file names: static, type-only, re-exports, `import()`, `require()`, `import('x').T` in types. */
export function moduleSpecifiers(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const specifier = specifierOf(node);
    if (specifier !== undefined) found.push(specifier);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function specifierOf(node: ts.Node): string | undefined {
  if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return stringLiteral(node.moduleSpecifier);
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
    return stringLiteral(node.moduleReference.expression);
  }
  if (ts.isCallExpression(node) && (isDynamicImport(node) || isRequire(node))) return stringLiteral(node.arguments[0]);
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) return stringLiteral(node.argument.literal);
  return undefined;
}

const isDynamicImport = (call: ts.CallExpression) => call.expression.kind === ts.SyntaxKind.ImportKeyword;
const isRequire = (call: ts.CallExpression) => ts.isIdentifier(call.expression) && call.expression.text === 'require';
const stringLiteral = (node: ts.Node | undefined) => (node !== undefined && ts.isStringLiteralLike(node) ? node.text : undefined);

/** The file a relative specifier names, as Node's resolution (tsconfig: node10) finds it. */
function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [base, `${base}.ts`, `${base}.d.ts`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')];
  return candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
}

function typeScriptFiles(rootDir: string): string[] {
  return fs
    .readdirSync(rootDir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.split(path.sep).join('/'))
    .sort();
}

/** Package imports are left out: only a relative import can lead back into the tree. */
export function buildModuleGraph(rootDir: string): ModuleGraph {
  const files = typeScriptFiles(rootDir);
  const known = new Set(files);
  const imports = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of files) {
    const absolute = path.join(rootDir, file);
    const targets = new Set<string>();
    for (const specifier of moduleSpecifiers(absolute, fs.readFileSync(absolute, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const resolved = resolveRelative(absolute, specifier);
      if (resolved === undefined) {
        unresolved.push(`${file}: '${specifier}'`);
        continue;
      }
      const target = path.relative(rootDir, resolved).split(path.sep).join('/');
      // A JSON file or a file outside the tree cannot import back into it.
      if (known.has(target)) targets.add(target);
    }
    imports.set(file, [...targets].sort());
  }
  return { files, imports, unresolved };
}

/** Tarjan's algorithm: each component's files reach one another, and no file outside it. */
export function stronglyConnectedComponents(graph: ModuleGraph): string[][] {
  let nextIndex = 0;
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];

  const visit = (file: string): void => {
    index.set(file, nextIndex);
    lowLink.set(file, nextIndex);
    nextIndex += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.imports.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        lowLink.set(file, Math.min(lowLink.get(file)!, lowLink.get(target)!));
      } else if (onStack.has(target)) {
        lowLink.set(file, Math.min(lowLink.get(file)!, index.get(target)!));
      }
    }
    if (lowLink.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    components.push(component.sort());
  };

  for (const file of graph.files) if (!index.has(file)) visit(file);
  return components;
}

/**
 * Each import cycle as a path that starts and ends at the same file: for every file in a component
 * of more than one file (or importing itself), the shortest way back to it. Every file of a
 * cycle appears in at least one path, so fixing the paths shown removes the component.
 */
export function findCycles(graph: ModuleGraph): string[][] {
  const cycles = new Map<string, string[]>();
  for (const component of stronglyConnectedComponents(graph)) {
    const [only] = component;
    const isSelfImport = component.length === 1 && only !== undefined && (graph.imports.get(only) ?? []).includes(only);
    if (component.length === 1 && !isSelfImport) continue;
    for (const start of component) {
      const cycle = rotateToSmallest(shortestWayBack(graph, start, new Set(component)));
      cycles.set(cycle.join(' -> '), cycle);
    }
  }
  return [...cycles.values()];
}

/** Breadth-first inside the component, so the path is one an engineer can read and cut. */
function shortestWayBack(graph: ModuleGraph, start: string, component: Set<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let at = 0; at < queue.length; at += 1) {
    const file = queue[at]!;
    for (const target of graph.imports.get(file) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) return [...pathTo(cameFrom, file, start), start];
      if (cameFrom.has(target)) continue;
      cameFrom.set(target, file);
      queue.push(target);
    }
  }
  throw new Error(`${start} is in a cycle but no path leads back to it`);
}

function pathTo(cameFrom: Map<string, string>, file: string, start: string): string[] {
  const reversed = [file];
  while (reversed[reversed.length - 1] !== start) reversed.push(cameFrom.get(reversed[reversed.length - 1]!)!);
  return reversed.reverse();
}

/** The same cycle found from each of its files is shown once, from its alphabetically first file. */
function rotateToSmallest(cycle: string[]): string[] {
  const ring = cycle.slice(0, -1);
  const first = ring.indexOf([...ring].sort()[0]!);
  const rotated = [...ring.slice(first), ...ring.slice(0, first)];
  return [...rotated, rotated[0]!];
}

export const describeCycle = (cycle: string[]) => cycle.join(' -> ');
