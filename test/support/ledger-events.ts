import { sql } from 'kysely';
import { rebuildWalletDays } from '../../src/btc/ledger/history.js';
import type { Database } from '../../src/db/connect.js';

/**
 * `count` valid ledger events made in SQL (fast enough for a million), the rates of their dates,
 * and wallet balances and days that match them; the read tables are left for a rebuild to fill.
 * Seeded wallets: 1–3 exchanges, 4–7 cold wallets. Thirds: deposits, buys into cold wallet
 * 4 + i mod 4, transfers of 1,000 sats (fee 10) on to the next cold wallet.
 */
export async function generateEvents(
  database: Database,
  count: number,
  firstDay = '2020-01-01',
): Promise<void> {
  const db = database.db;
  await sql`
    insert into btc.ledger_rates (date, rates_date, usd_eur, usd_dkk, eur_dkk)
    select d, d, round(0.85 + (extract(doy from d) / 10000)::numeric, 4), round(6.3 + (extract(doy from d) / 1000)::numeric, 4),
      round((6.3 + (extract(doy from d) / 1000)::numeric) / (0.85 + (extract(doy from d) / 10000)::numeric), 6)
    from generate_series(${firstDay}::date, ${firstDay}::date + 1999, interval '1 day') d
    on conflict (date) do nothing`.execute(db);
  await sql`
    insert into btc.events (type, occurred_at, wallet, from_wallet, to_wallet, sats, fee_sats, amount, currency)
    select
      (array['bank_to_exchange', 'exchange_to_wallet', 'wallet_to_wallet'])[i % 3 + 1],
      ${firstDay}::date + (i % 2000),
      case when i % 3 = 0 then 1 + (i / 3) % 3 end,
      case when i % 3 = 1 then 1 + (i / 3) % 3 when i % 3 = 2 then 4 + (i / 3) % 4 end,
      case when i % 3 = 1 then 4 + (i / 3) % 4 when i % 3 = 2 then 4 + ((i / 3) + 1) % 4 end,
      case when i % 3 = 1 then 10000 + i % 1000 when i % 3 = 2 then 1000 end,
      case when i % 3 = 1 then i % 50 when i % 3 = 2 then 10 end,
      case when i % 3 <> 2 then round((10 + (i % 9000) / 7.0)::numeric, 2) end,
      case when i % 3 <> 2 then (array['EUR', 'DKK', 'USD'])[(i / 3) % 3 + 1] end
    from generate_series(0, ${count - 1}) i`.execute(db);
  await sql`
    update btc.wallets w set balance = coalesce((
      select sum(x.delta) from (
        select to_wallet as id, sats as delta from btc.events where type <> 'bank_to_exchange'
        union all
        select from_wallet, -(sats + fee_sats) from btc.events where type = 'wallet_to_wallet'
      ) x where x.id = w.id), 0)`.execute(db);
  await rebuildWalletDays(db);
}

/** A fingerprint of a read table's rows, to compare tables without moving them into JS. */
export async function tableDigest(database: Database, table: 'deposits' | 'buys'): Promise<string> {
  const r = await sql<{ n: number; digest: string | null }>`
    select count(*)::int8 as n, md5(string_agg(t::text, '|' order by t.id)) as digest
    from ${sql.table(`btc.${table}`)} t`.execute(database.db);
  return `${r.rows[0]!.n}:${r.rows[0]!.digest ?? ''}`;
}
