import { sql } from 'kysely';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { create } from 'tar';
import { openDatabase } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { restoreBackup } from '../src/ops/backup/restore.js';
import { BackupService } from '../src/ops/backup/service.js';
import { systemClock } from '../src/shared/clock.js';
import { generateEvents } from '../test/support/ledger-events.js';
import { seedYear } from './costs.bench.js';
import { row, type Benchmark, type BenchRow } from './lib.js';

/** Bytes of every file under a folder. */
async function folderBytes(dir: string): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) total += (await stat(path.join(e.parentPath, e.name))).size;
  return total;
}

const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const r = await fn();
  return [r, performance.now() - t0];
};

/**
 * A year of day-ahead prices (both areas' quarter hours and hours, with consumption, production
 * and solar hours) and 10,000 ledger events on the embedded database: a backup's size and time,
 * and a restore's time. Baselines in the same run: the folder's own size; packing the stopped
 * folder with the same gzip tar (what a backup adds on top is the checkpoint and the copy);
 * opening the folder (what a restore adds is unpacking and moving).
 */
export const backupBench: Benchmark = {
  name: 'backup',
  async run(): Promise<BenchRow[]> {
    const work = await mkdtemp(path.join(tmpdir(), 'satwatt-bench-backup-'));
    const dataDir = path.join(work, 'data');
    try {
      let database = await openDatabase({ server: null, dataDir });
      await migrate(database);
      await seedYear(database.db);
      await sql`insert into power.prices (time_dk, price_area, resolution_minutes, price_dkk, price_eur)
        select t, a, 15, round((500 + 300 * sin(extract(epoch from t) / 20000))::numeric, 6),
               round((67 + 40 * sin(extract(epoch from t) / 20000))::numeric, 6)
          from generate_series(timestamptz '2025-12-31 23:00:00+00', timestamptz '2026-12-31 22:45:00+00',
                               interval '15 minutes') t cross join (values ('DK1'), ('DK2')) areas(a)`.execute(
        database.db,
      );
      await generateEvents(database, 10_000, '2025-01-01');
      // as the service leaves it: checkpointed by the daily retention, read tables rebuilt
      await sql`checkpoint`.execute(database.db);
      const service = new BackupService({ database, dataDir, clock: systemClock });
      const held: number[] = [];
      const copyTo = database.copyTo!;
      const measuring = new BackupService({
        database: { copyTo: async (to) => void held.push((await timed(() => copyTo(to)))[1]) },
        dataDir,
        clock: systemClock,
      });
      const file = path.join(work, 'backup.tar.gz');
      await service.writeFile(file); // warm-up
      const [, backupMs] = await timed(() => measuring.writeFile(file));
      const backupBytes = (await stat(file)).size;
      await database.close();

      const folder = await folderBytes(path.join(dataDir, 'pg'));
      const plain = path.join(work, 'plain.tar.gz');
      const [, packMs] = await timed(() =>
        pipeline(create({ gzip: true, cwd: dataDir, portable: true }, ['pg']), createWriteStream(plain)),
      );
      const [, openMs] = await timed(async () => {
        database = await openDatabase({ server: null, dataDir });
        await sql`select count(*) from btc.events`.execute(database.db);
        await database.close();
      });
      const restoredDir = path.join(work, 'restored');
      const [, restoreMs] = await timed(() => restoreBackup(file, restoredDir));
      return [
        row({
          name: 'backup size (year of prices, 10,000 events)',
          unit: 'MB',
          value: backupBytes / 1e6,
          baselineName: 'the database folder',
          baseline: folder / 1e6,
        }),
        row({
          name: 'backup time, service running',
          unit: 'ms',
          value: backupMs,
          baselineName: 'gzip tar of the stopped folder',
          baseline: packMs,
        }),
        row({
          name: 'queries held during the backup (checkpoint and copy)',
          unit: 'ms',
          value: held[0]!,
          baselineName: 'the whole backup',
          baseline: backupMs,
        }),
        row({
          name: 'restore time (unpack, open once, check, move)',
          unit: 'ms',
          value: restoreMs,
          baselineName: 'opening the folder',
          baseline: openMs,
        }),
      ];
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  },
};
