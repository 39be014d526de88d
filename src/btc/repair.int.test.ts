import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../test/support/db.js';
import { strikeTicker } from '../../test/fakes/strike.js';
import { loadMigrations } from '../db/migrate.js';

/**
 * The one-off repair of rows stored before answers were held to bounds: run again on a database
 * that holds such rows (as it would have on the start that applies it), it removes them and keeps
 * the sane ones.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.close());

const candle = (time: string, close: string, volume = '1.5') => ({
  pair: 'BTC/USD',
  time: new Date(time),
  open: '42000',
  high: close,
  low: '41000',
  close,
  vwap: '42000',
  volume,
  trades: 10,
});

describe('the repair of implausible stored rows', () => {
  it('removes future and out-of-bounds candles, prices, fees, quotes and rates; keeps the rest', async () => {
    const d = db.database.db;
    await d
      .insertInto('btc.candles_hour')
      .values([
        candle('2026-07-01T10:00:00Z', '42500'),
        candle('2100-01-01T00:00:00Z', '42500'), // dated in the future: every poll resumed from it
        candle('2026-07-01T11:00:00Z', `1${'0'.repeat(300)}`),
        candle('2026-07-01T12:00:00Z', '42500', '99000000'),
      ])
      .execute();
    await d
      .insertInto('btc.candles_day')
      .values([candle('2026-07-01T00:00:00Z', '42500'), candle('2099-01-01T00:00:00Z', '42500')])
      .execute();
    const price = (at: string, usd: string) => ({ at: new Date(at), btc_usd: usd, btc_eur: '60000' });
    await d
      .insertInto('btc.spot_prices')
      .values([
        price('2026-07-01T10:00:00Z', '65000'),
        price('2099-01-01T00:00:00Z', '65000'),
        price('2026-07-01T10:00:01Z', '1e300'),
      ])
      .execute();
    const fee = (date: string, fee_eur: string) => ({
      date,
      total_eur: '55',
      fee_eur,
      learned_at: new Date(),
    });
    await d
      .insertInto('btc.quote_fees')
      .values([fee('2026-07-01', '0.55'), fee('2026-07-02', '60.00'), fee('2026-07-03', '-1')])
      .execute();
    const quote = (fee_eur: string, quote_sats: number) => ({
      at: new Date('2026-07-01T10:00:00Z'),
      total_eur: '55',
      fee_eur,
      pre_fee_eur: '54.45',
      quote_sats,
      rates: JSON.stringify(strikeTicker('65000', '60000')),
    });
    await d
      .insertInto('btc.quotes')
      .values([quote('0.55', 90_750), quote('60', 90_750), quote('0.55', 0), quote('0.55', 1)])
      .execute();
    const rates = (date: string, usd_eur: string, usd_dkk: string) => ({
      date,
      rates_date: date,
      usd_eur,
      usd_dkk,
      eur_dkk: '7.46',
    });
    await d
      .insertInto('btc.currency_rates')
      .values([
        rates('2026-07-01', '0.92', '6.88'),
        rates('2026-07-02', '920', '6.88'),
        rates('2026-07-03', '0.92', '0.001'),
      ])
      .execute();

    const repair = (await loadMigrations()).find(
      (m) => m.schema === 'btc' && m.name.includes('repair_implausible'),
    );
    expect(repair?.version).toBe(110);
    await db.database.withSession((s) => s.exec(repair!.sql));

    const count = async (table: string) =>
      (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(d)).rows[0]!.n;
    expect(await count('btc.candles_hour')).toBe(1);
    expect(await count('btc.candles_day')).toBe(1);
    expect(await d.selectFrom('btc.spot_prices').select('btc_usd').execute()).toEqual([{ btc_usd: '65000' }]);
    expect(await d.selectFrom('btc.quote_fees').select('fee_eur').execute()).toEqual([{ fee_eur: '0.55' }]);
    expect(await d.selectFrom('btc.quotes').select(['fee_eur', 'quote_sats']).execute()).toEqual([
      { fee_eur: '0.55', quote_sats: 90_750 },
    ]);
    expect(await d.selectFrom('btc.currency_rates').select('date').execute()).toEqual([
      { date: '2026-07-01' },
    ]);
  });

  it('brings stored wallet names to Unicode NFC, unless that would make two wallets one name', async () => {
    const d = db.database.db;
    await d
      .insertInto('btc.wallets')
      .values([
        { name: 'Cafe\u0301 one', wallet_type: 'wallet' },
        { name: 'Caf\u00e9 two', wallet_type: 'wallet' },
        { name: 'Cafe\u0301 two', wallet_type: 'wallet' },
      ])
      .execute();
    const nfc = (await loadMigrations()).find(
      (m) => m.schema === 'btc' && m.name.includes('wallet_names_nfc'),
    );
    await db.database.withSession((s) => s.exec(nfc!.sql));
    const names = (await d.selectFrom('btc.wallets').select('name').where('name', 'like', 'Caf%').execute())
      .map((w) => w.name)
      .sort();
    expect(names).toEqual(['Cafe\u0301 two', 'Caf\u00e9 one', 'Caf\u00e9 two'].sort());
  });
});
