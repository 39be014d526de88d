import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every table has one owner (docs/architecture.md, "Every table has one owner"): the feature
 * whose tables.ts types it. Only the owner's code names it; the others read it through the
 * owner's query functions. What is named elsewhere all the same is listed here with its reason.
 */
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

const NAMED_ELSEWHERE: Record<string, { tables: string[]; why: string }> = {
  'src/btc/portfolio/repository.ts': {
    tables: ['btc.event_moves', 'btc.events', 'btc.ledger_rates', 'btc.wallets'],
    why: "the portfolio's sums over the ledger's events, and its balances at a date through the ledger's moves",
  },
  'src/btc/tax/repository.ts': {
    tables: ['btc.events', 'btc.ledger_rates', 'btc.wallets', 'btc.candles_day'],
    why: "the FIFO book's one read of the ledger's events with their owners and DKK amounts, and the days' vwap",
  },
  'src/btc/imports/repository.ts': {
    tables: ['btc.ledger_rates'],
    why: 'the rates an import converts with, as the ledger stored them',
  },
  'src/btc/retention/repository.ts': {
    tables: [
      'btc.quotes',
      'btc.quotes_hour',
      'btc.spot_prices',
      'btc.candles_minute',
      'btc.idempotency_keys',
    ],
    why: 'VACUUM (ANALYZE) after the pruning: maintenance, no row read or written',
  },
  'src/power/solar/repository.ts': {
    tables: ['power.metered_hours'],
    why: 'ANALYZE of the metered hours an import changed through their trigger',
  },
  'src/power/ha-statistics/repository.ts': {
    tables: ['power.elprices', 'power.prices'],
    why: 'ANALYZE of the tables the pending hours are planned over',
  },
};

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await files(p)));
    else if (/\.(ts|mjs)$/.test(e.name) && !/\.test\.ts$/.test(e.name)) out.push(p);
  }
  return out;
}

const withoutComments = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
/** The text of the string and template literals: where SQL and Kysely name a table, never code. */
const literals = (text: string) =>
  [...text.matchAll(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g)]
    .map((m) => m[0])
    .join('\n');
const rel = (p: string) => path.relative(ROOT, p).split(path.sep).join('/');
/** src/<service>/<feature>/… → <service>/<feature>; null outside a feature. */
const featureOf = (file: string) =>
  /^src\/(btc|power)\/([a-z0-9-]+)\//.exec(file)?.slice(1, 3).join('/') ?? null;

const sources = await files(path.join(ROOT, 'src'));
const owner = new Map<string, string>();
const typedTwice: string[] = [];
for (const file of sources.filter((f) => f.endsWith(`${path.sep}tables.ts`))) {
  const feature = featureOf(rel(file))!;
  for (const [, table] of withoutComments(await readFile(file, 'utf8')).matchAll(
    /'((?:btc|power)\.[a-z0-9_]+)':/g,
  )) {
    if (owner.has(table!)) typedTwice.push(table!);
    owner.set(table!, feature);
  }
}

describe('every table has one owner', () => {
  it('is typed in one feature, and every table (or view) the migrations leave is typed', async () => {
    const made = new Set<string>();
    for (const schema of ['btc', 'power'])
      for (const name of (await readdir(path.join(ROOT, 'migrations', schema))).sort()) {
        const text = await readFile(path.join(ROOT, 'migrations', schema, name), 'utf8');
        for (const [, verb, table] of text.matchAll(
          /\b(create|drop) (?:table|view) (?:if not exists )?([a-z]+\.[a-z0-9_]+)/gi,
        ))
          if (verb!.toLowerCase() === 'create') made.add(table!);
          else made.delete(table!);
      }
    expect(typedTwice).toEqual([]);
    expect([...owner.keys()].sort()).toEqual([...made].sort());
  });

  it("is named only in its owner's code, and where else is listed with its reason", async () => {
    const strays: string[] = [];
    const used = new Set<string>();
    for (const file of sources.map(rel)) {
      const text = literals(withoutComments(await readFile(path.join(ROOT, file), 'utf8')));
      const feature = featureOf(file);
      for (const table of owner.keys()) {
        const named = new RegExp(`\\b${table.replace('.', '\\.')}\\b(?!\\.)`).test(text);
        if (
          !named ||
          owner.get(table) === feature ||
          file.endsWith('/tables.ts') ||
          file === 'src/db/schema.ts'
        )
          continue;
        if (NAMED_ELSEWHERE[file]?.tables.includes(table)) used.add(`${file} ${table}`);
        else strays.push(`${file} names ${table} of ${owner.get(table)}`);
      }
    }
    expect(strays).toEqual([]);
    const listed = Object.entries(NAMED_ELSEWHERE).flatMap(([f, e]) => e.tables.map((t) => `${f} ${t}`));
    expect(
      listed.filter((l) => !used.has(l)),
      'listed here but no longer named there: take it off the list',
    ).toEqual([]);
  });
});
