import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/fakes/stream-clients.js';
import { TEST_DATABASE_URL, freshDatabase, type TestDatabase } from '../../test/support/db.js';
import type { ListenerState } from './listener.js';

if (!TEST_DATABASE_URL)
  console.log('LISTEN reconnection test skipped: TEST_DATABASE_URL is unset (it needs a PostgreSQL server)');

describe.skipIf(!TEST_DATABASE_URL)('the LISTEN connection to a server', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await freshDatabase({ migrated: false });
  }, 60_000);
  afterAll(() => t?.close());

  it('comes back after the server ends it, listens again and tells the handler to re-read', async () => {
    const { database } = t;
    const heard: (string | undefined)[] = [];
    const states: ListenerState[] = [];
    database.watchNotifications((s) => states.push(s));
    const stop = await database.listen('satwatt_test_channel', (p) => heard.push(p));
    expect(states).toEqual([{ connected: true, error: null }]);
    await sql`select pg_notify('satwatt_test_channel', 'one')`.execute(database.db);
    await waitFor(() => heard.includes('one'), 10_000, 'the first notification');

    const ended = await sql<{ n: number }>`
      select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
       where datname = current_database() and application_name = 'satwatt-listen'`.execute(database.db);
    expect(ended.rows[0]!.n).toBe(1);
    // sent while the connection may be down: it may be lost, so the handler is told to re-read
    await sql`select pg_notify('satwatt_test_channel', 'while down')`.execute(database.db);
    await waitFor(() => heard.includes(undefined), 10_000, 'the re-read call after reconnecting');
    expect(states.some((s) => !s.connected && s.error)).toBe(true);
    expect(states.at(-1)).toEqual({ connected: true, error: null });

    await sql`select pg_notify('satwatt_test_channel', 'two')`.execute(database.db);
    await waitFor(() => heard.includes('two'), 10_000, 'a notification on the new connection');
    await stop();
  }, 60_000);
});
