import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { chunksOf, checkParameters, MAX_PARAMETERS, ROW_PARAMETERS, TooManyParameters } from './chunks.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('chunksOf', () => {
  it('cuts rows into runs of at most ROW_PARAMETERS values, in order, counting every key of any row', () => {
    const rows = Array.from({ length: 25_001 }, (_, i) => (i === 7 ? { a: i, b: i, c: i, d: i } : { a: i }));
    const chunks = chunksOf(rows);
    // four columns (d appears in one row only): 2,500 rows a statement
    expect(chunks.map((c) => c.length)).toEqual([...Array<number>(10).fill(2_500), 1]);
    expect(chunks.flat()).toEqual(rows);
    expect(chunksOf([])).toEqual([]);
    expect(chunksOf([{}])).toEqual([[{}]]);
  });

  it('keeps each statement well inside what either backend takes', () => {
    expect(ROW_PARAMETERS * 3).toBeLessThan(MAX_PARAMETERS);
    expect(() => checkParameters(MAX_PARAMETERS)).not.toThrow();
    expect(() => checkParameters(MAX_PARAMETERS + 1)).toThrow(TooManyParameters);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Whether a method chain (`db.insertInto(t).values(…)`) has an insertInto call below `node`. */
function isInsertChain(node: ts.Expression): boolean {
  for (let n: ts.Expression = node; ;) {
    if (ts.isCallExpression(n)) {
      const callee = n.expression;
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'insertInto') return true;
      n = callee;
    } else if (ts.isPropertyAccessExpression(n)) n = n.expression;
    else return false;
  }
}

/**
 * The `.values(list)` calls of an INSERT that are not made inside a writeInChunks callback. The
 * files are checked alone (imports unresolved, which keeps this fast): a list is what their own
 * text makes one, a parameter `rows: Row[]`, a `.map()`, an array literal.
 */
function unchunkedInserts(): string[] {
  const files = sourceFiles(SRC).filter((f) => readFileSync(f, 'utf8').includes('.values('));
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
    noResolve: true,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const found: string[] = [];
  const insideWriteInChunks = (node: ts.Node): boolean => {
    for (let n = node.parent; n; n = n.parent)
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'writeInChunks')
        return true;
    return false;
  };
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const visit = (node: ts.Node) => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'values' &&
        node.arguments.length === 1 &&
        isInsertChain(node.expression.expression)
      ) {
        const argument = checker.getTypeAtLocation(node.arguments[0]!);
        const isList = checker.isArrayType(argument) || checker.isTupleType(argument);
        if (isList && !insideWriteInChunks(node)) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          found.push(`${path.relative(SRC, file)}:${line + 1}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('the one rule for writes of many rows', () => {
  it('every INSERT of a list of rows in src/ is sent through writeInChunks', { timeout: 60_000 }, () => {
    expect(unchunkedInserts()).toEqual([]);
  });
});
