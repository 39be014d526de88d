import Fastify from 'fastify';
import { sql } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openDatabase } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { createRuntime } from '../src/runtime.js';
import { fakeRates } from '../test/fakes/rates.js';
import { generateEvents } from '../test/support/ledger-events.js';
import { ledgerOnly } from '../test/support/services.js';
import { BARE_REBUILD, postRate, timed } from './ledger.bench.js';
import { benchConfig, percentile, row, type Benchmark, type BenchRow } from './lib.js';

const EVENTS = 1_000_000;

/**
 * The ledger on the embedded database in a data folder, as a household runs it: a million
 * generated events, the read tables rebuilt through the API beside the bare statements on the
 * same database, and event writes beside a bare route doing one INSERT on it.
 */
export const ledgerPgliteBench: Benchmark = {
  name: 'ledger-pglite',
  async run(): Promise<BenchRow[]> {
    const dir = await mkdtemp(path.join(tmpdir(), 'satwatt-bench-'));
    const database = await openDatabase({ server: null, dataDir: dir });
    try {
      await migrate(database);
      const runtime = await createRuntime(benchConfig({ SERVICES: 'btc' }), {
        database,
        log: pino({ level: 'silent' }),
        services: ledgerOnly(fakeRates()),
      });
      const bare = Fastify();
      try {
        const generateMs = await timed(() => generateEvents(database, EVENTS));
        await sql`analyze`.execute(database.db);
        const subject = await runtime.app.listen({ port: 0, host: '127.0.0.1' });
        const ours: number[] = [];
        const bareRebuild: number[] = [];
        for (const order of [
          ['s', 'b'],
          ['b', 's'],
          ['s', 'b'],
        ])
          for (const which of order) {
            if (which === 's')
              ours.push(
                await timed(async () => {
                  for (const t of ['deposits', 'buys']) {
                    const res = await fetch(`${subject}/api/${t}/rebuild`, { method: 'POST' });
                    if (res.status !== 200) throw new Error(`rebuild ${t}: ${res.status}`);
                  }
                }),
              );
            else bareRebuild.push(await timed(() => database.withSession((s) => s.exec(BARE_REBUILD))));
          }
        await sql`create table public.bare_events (like btc.events including all)`.execute(database.db);
        bare.post('/events', async (req, reply) => {
          const b = req.body as Record<string, string | number | null>;
          await sql`insert into public.bare_events (type, occurred_at, from_wallet, to_wallet, sats, fee_sats, amount, currency)
            values (${b.type}, ${b.occurred_at}, ${b.from_wallet}, ${b.to_wallet}, ${b.sats}, ${b.fee_sats}, ${b.amount}, ${b.currency})`.execute(
            database.db,
          );
          return reply.code(201).send(b);
        });
        const baseline = await bare.listen({ port: 0, host: '127.0.0.1' });
        await postRate(`${subject}/api/events`, 1, 2);
        const seqApi = await postRate(`${subject}/api/events`, 1, 4);
        const seqBare = await postRate(`${baseline}/events`, 1, 4);
        const median = (xs: number[]) =>
          percentile(
            [...xs].sort((p, q) => p - q),
            50,
          );
        return [
          row({
            name: 'ledger rebuild on PGlite, deposits + buys',
            unit: 'ms',
            value: median(ours),
            baselineName: 'bare DELETE + INSERT … SELECT on the same database, one transaction',
            baseline: median(bareRebuild),
            target: 'ratio ≤ 2',
            note: `${EVENTS.toLocaleString('en')} events in a data folder, generated in ${(generateMs / 1000).toFixed(1)} s; median of 3`,
          }),
          row({
            name: 'POST /api/events on PGlite, 1 client',
            unit: 'events/s',
            value: seqApi,
            baselineName: 'bare route, one INSERT on the same database',
            baseline: seqBare,
          }),
        ];
      } finally {
        await bare.close();
        await runtime.stop();
      }
    } finally {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
