import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/connect.js';

/**
 * A process for the fsync test (`tsx commit-probe.ts <dir> <fsync> <commits>`): opens the embedded
 * database in <dir>, then makes <commits> single-row commits between two marker files, whose
 * opening shows in a syscall trace. Run as a script only.
 */
const [dir, fsync, commits] = process.argv.slice(2);
if (!dir || !commits) throw new Error('usage: commit-probe.ts <dir> <true|false> <commits>');
const database = await openDatabase({ server: null, dataDir: dir, fsync: fsync === 'true' });
await sql`create table public.probe (id serial primary key, v text)`.execute(database.db);
writeFileSync(path.join(dir, 'MARK-BEGIN'), '');
for (let i = 0; i < Number(commits); i++)
  await sql`insert into public.probe (v) values (${`row ${i}`})`.execute(database.db);
writeFileSync(path.join(dir, 'MARK-END'), '');
await database.close();
