import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each production module under src/ (a path relative to it) with the modules of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const files = (function walk(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return walk(full);
      return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
    });
  })(SRC);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imported = ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.map((f) => f.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.relative(SRC, path.resolve(path.dirname(file), name)).replace(/\.js$/, '.ts'));
    graph.set(path.relative(SRC, file), imported);
  }
  return graph;
}

/**
 * The modules outside the HTTP edge that import from http/. The edge is http/ itself, app.ts,
 * every routes.ts and schemas.ts, a feature's streams.ts (its sockets and event streams), and a
 * module that only the edge imports (a route's helper).
 */
function edgeCrossings(graph: Map<string, string[]>): string[] {
  const importers = new Map<string, string[]>();
  for (const [file, imported] of graph)
    for (const target of imported) importers.set(target, [...(importers.get(target) ?? []), file]);
  const known = new Map<string, boolean>();
  const isEdge = (file: string): boolean => {
    const name = path.basename(file);
    if (
      file.startsWith(`http${path.sep}`) ||
      file === 'app.ts' ||
      name === 'routes.ts' ||
      name === 'schemas.ts' ||
      name === 'streams.ts'
    )
      return true;
    const seen = known.get(file);
    if (seen !== undefined) return seen;
    known.set(file, false); // an import cycle does not make a module the edge
    const users = importers.get(file) ?? [];
    const edge = users.length > 0 && users.every(isEdge);
    known.set(file, edge);
    return edge;
  };
  return [...graph]
    .filter(([file, imported]) => !isEdge(file) && imported.some((t) => t.startsWith(`http${path.sep}`)))
    .map(([file]) => file)
    .sort();
}

describe('the HTTP edge', () => {
  it('is the only importer of http/: no service, scheduler, provider or wiring imports from it', () => {
    const graph = importGraph();
    const importersOfHttp = [...graph].filter(([, imported]) =>
      imported.some((t) => t.startsWith(`http${path.sep}`)),
    );
    // the graph is read: routes and schemas import http/ by the dozen
    expect(importersOfHttp.length).toBeGreaterThan(30);
    expect(edgeCrossings(graph)).toEqual([]);
  });

  it('catches a service that imports http/, directly or through a module the edge does not own', () => {
    const p = (...parts: string[]) => parts.join(path.sep);
    const graph = new Map<string, string[]>([
      [p('power', 'x', 'index.ts'), [p('power', 'x', 'routes.ts'), p('power', 'x', 'service.ts')]],
      [p('power', 'x', 'routes.ts'), [p('http', 'problem.ts'), p('power', 'x', 'answers.ts')]],
      [p('power', 'x', 'answers.ts'), [p('http', 'problem.ts')]],
      [p('power', 'x', 'service.ts'), [p('http', 'problem.ts'), p('power', 'x', 'shared.ts')]],
      [p('power', 'x', 'shared.ts'), [p('http', 'types.ts')]],
      [p('power', 'x', 'scheduler.ts'), [p('power', 'x', 'shared.ts')]],
      [p('http', 'problem.ts'), []],
      [p('http', 'types.ts'), []],
    ]);
    expect(edgeCrossings(graph)).toEqual([p('power', 'x', 'service.ts'), p('power', 'x', 'shared.ts')]);
  });
});
