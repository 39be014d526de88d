import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { generateEvents } from '../../../test/support/ledger-events.js';
import { ledgerOnly } from '../../../test/support/services.js';
import type { RunningService } from '../../remote/client.js';
import { collectingOutput } from '../../shared/command-output.js';
import { ledgerRebuildCommand } from './command.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ services: ledgerOnly(fakeRates()) });
  await generateEvents(t.db.database, 30);
});
afterAll(() => t.close());

function run(args: string[]) {
  const output = collectingOutput();
  return ledgerRebuildCommand(output)
    .run(args, t.ctx)
    .then((code) => ({ code, ...output.lines }));
}

async function rows(table: 'deposits' | 'buys'): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(`btc.${table}`)}`.execute(
    t.db.database.db,
  );
  return r.rows[0]!.n;
}

describe('ledger-rebuild', () => {
  it('rebuilds only the table it is given', async () => {
    const r = await run(['buys']);
    expect(r).toEqual({ code: 0, out: ['rebuilding buys', 'rebuilt buys: 10 rows'], err: [] });
    expect(await rows('buys')).toBe(10);
    expect(await rows('deposits')).toBe(0);
  });

  it('rebuilds both tables without a target, and with all, as often as --times says', async () => {
    expect((await run([])).out).toEqual([
      'rebuilding deposits',
      'rebuilt deposits: 10 rows',
      'rebuilding buys',
      'rebuilt buys: 10 rows',
    ]);
    expect((await run(['--times', '2', 'deposits'])).out).toHaveLength(4);
    expect((await run(['all', '--times', '2'])).out).toHaveLength(8);
  });

  it('refuses an unknown target with exit code 2, naming the valid ones, and rebuilds nothing', async () => {
    const r = await run(['everything']);
    expect(r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err[0]).toBe('ledger-rebuild: unknown target "everything"; the targets are deposits, buys, all');
  });

  it('refuses two targets, a bad --times and an unknown option', async () => {
    for (const args of [['buys', 'deposits'], ['--times', '0'], ['--times'], ['buys', '--fast']]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.out).toEqual([]);
    }
  });

  it('forwards the same target to a running service', async () => {
    const sent: unknown[] = [];
    const service = {
      runJob: (_verb: string, _path: string, job: unknown) => (sent.push(job), Promise.resolve(0)),
    } as unknown as RunningService;
    const command = ledgerRebuildCommand(collectingOutput());
    expect(await command.forward!(['buys'], service)).toBe(0);
    expect(await command.forward!(['everything'], service)).toBe(2);
    expect(sent).toEqual([{ query: { table: 'buys', times: '1' } }]);
  });
});
