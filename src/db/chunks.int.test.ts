import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../../test/support/db.js';
import * as candles from '../btc/candles/repository.js';
import * as imports from '../btc/imports/repository.js';
import * as history from '../btc/ledger/history.js';
import * as ledger from '../btc/ledger/repository.js';
import * as rates from '../btc/rates/repository.js';
import * as household from '../power/household/repository.js';
import * as metering from '../power/metering/repository.js';
import * as prices from '../power/prices/repository.js';
import * as solar from '../power/solar/repository.js';
import { addDays } from '../shared/danish-time.js';
import { MAX_PARAMETERS, TooManyParameters } from './chunks.js';

/**
 * Every repository writer of a list, given more rows than one statement may carry (past
 * 32,767 parameters: what broke PGlite and, past 65,535, overflowed a server's bind message),
 * stores them all, and the database answers afterwards. On PGlite, and on the server with
 * TEST_DATABASE_URL. The rows are generated.
 */

let t: TestDatabase;
beforeAll(async () => {
  t = await freshDatabase();
});
afterAll(() => t.close());

const db = () => t.database.db;
/** More rows of `columns` columns than one statement of MAX_PARAMETERS parameters holds. */
const past = (columns: number) => Math.floor(MAX_PARAMETERS / columns) + 1;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const day = (i: number) => addDays('2000-01-01', i);
const hour = (i: number) => new Date(Date.UTC(2020, 0, 1) + i * 3_600_000);
const count = async (table: string, where = sql`true`) =>
  (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where ${where}`.execute(db()))
    .rows[0]!.n;

describe(`a statement of more than ${MAX_PARAMETERS} parameters (${TEST_DATABASE_URL ? 'server' : 'PGlite'})`, () => {
  it('is refused before it is sent, through Kysely and a script session, and the database goes on answering', async () => {
    const params = range(MAX_PARAMETERS + 1);
    const list = sql.join(params.map((p) => sql`${p}::int`));
    await expect(sql`select array[${list}] as a`.execute(db())).rejects.toThrow(TooManyParameters);
    const text = `select array[${params.map((_, i) => `$${i + 1}::int`).join(',')}] as a`;
    await expect(t.database.withSession((s) => s.query(text, params))).rejects.toThrow(/at most 32767/);
    const fits = sql.join(params.slice(1).map((p) => sql`${p}::int`));
    const { rows } = await sql<{ n: number }>`select cardinality(array[${fits}]) as n`.execute(db());
    expect(rows[0]!.n).toBe(MAX_PARAMETERS);
    await t.database.check();
  });
});

describe('every writer of a list stores more rows than one statement carries', () => {
  let eventIds: number[] = [];
  let lotIds: number[] = [];

  it('ledger events (9 columns) and the wallet days of a batch', async () => {
    const n = past(9);
    const rows = await ledger.insertEvents(
      db(),
      range(n).map((i) => ({
        type: 'bank_to_exchange' as const,
        occurred_at: day(i % 3000),
        wallet: 1,
        amount: '1.00',
        currency: 'EUR' as const,
      })),
    );
    eventIds = rows.map((r) => r.id);
    expect(rows).toHaveLength(n);
    expect(await count('btc.events')).toBe(n);
    const days = range(past(5)).map((i) => ({ wallet: 4, day: day(i), delta: 1000 + i }));
    await history.appendToWalletDays(db(), days);
    expect(await count('btc.wallet_days', sql`wallet = 4`)).toBe(days.length);
  });

  it('ledger rates and currency rates (5 columns)', async () => {
    const records = range(past(5)).map((i) => ({
      date: day(i),
      rates_date: day(i),
      usd_eur: '0.9',
      usd_dkk: '6.7',
      eur_dkk: '7.44',
    }));
    await ledger.saveRates(db(), records);
    await rates.upsertMany(db(), records);
    expect(await count('btc.ledger_rates')).toBe(records.length);
    expect(await count('btc.currency_rates')).toBe(records.length);
  });

  it('purchase lots (8), import references and lot allocations (3)', async () => {
    const lots = range(past(8)).map((i) => ({
      exchange: 1,
      source: 'kraken' as const,
      reference: `T${i}`,
      acquired_at: hour(i),
      occurred_at: day(i % 3000),
      sats: 1000,
      amount: '1.00',
      currency: 'EUR' as const,
    }));
    lotIds = await imports.insertLots(db(), lots);
    expect(lotIds).toHaveLength(lots.length);
    expect(new Set(lotIds).size).toBe(lots.length);
    await imports.insertReferences(
      db(),
      eventIds.map((id, i) => ({ event_id: id, source: 'csv' as const, reference: `r${i}` })),
    );
    expect(await count('btc.imported_events')).toBe(eventIds.length);
    // every event takes from three lots: many more allocations than events
    const allocations = eventIds.flatMap((event_id, i) =>
      [0, 1, 2].map((k) => ({ event_id, lot_id: lotIds[(i + k) % lotIds.length]!, sats: 1 })),
    );
    expect(allocations.length * 3).toBeGreaterThan(MAX_PARAMETERS);
    await imports.insertAllocations(db(), allocations);
    expect(await count('btc.lot_allocations')).toBe(allocations.length);
  });

  it('candles (9 columns), upserted and inserted closed', async () => {
    const rows = range(past(9)).map((i) => ({
      pair: 'BTC/EUR',
      time: new Date(Date.UTC(2020, 0, 1) + i * 60_000),
      open: '1',
      high: '2',
      low: '0.5',
      close: '1.5',
      vwap: '1.2',
      volume: '0.1',
      trades: 3,
    }));
    expect(await candles.upsertCandles(db(), 'btc.candles_minute', rows)).toBe(rows.length);
    expect(await candles.insertClosedCandles(db(), 'btc.candles_hour', rows)).toBe(rows.length);
    expect(await count('btc.candles_minute')).toBe(rows.length);
  });

  it('metering points (9), readings (6), charge prices (3) and hourly energy (4)', async () => {
    const points = range(past(9)).map((i) => ({
      metering_point_id: String(571313100000000000n + BigInt(i)),
      parent_id: null,
      type_of_mp: 'E17',
      settlement_method: 'D01',
      reading_occurrence: 'PT1H',
      meter_number: String(i),
      postcode: '8000',
      city_name: 'Aarhus C',
      balance_supplier_name: 'Supplier A/S',
    }));
    await metering.upsertMeteringPoints(db(), points);
    expect(await count('power.metering_points')).toBe(points.length);
    const point = points[0]!.metering_point_id;
    const readings = range(past(6)).map((i) => ({
      metering_point_id: point,
      start_at: hour(i),
      resolution: 'PT1H',
      business_type: 'A04',
      quantity_kwh: '0.412',
      quality: 'A04',
    }));
    expect(await metering.insertReadings(db(), readings)).toBe(readings.length);
    const charge = await metering.insertCharge(db(), {
      metering_point_id: point,
      kind: 'tariff',
      name: 'Nettarif C time',
      description: null,
      owner_gln: '5790000705689',
      period_type: 'PT1H',
      quantity: 1,
      valid_from: hour(0),
      valid_to: null,
    });
    const chargePrices = range(past(3)).map((i) => ({
      charge_id: charge!,
      position: i + 1,
      price_dkk: '0.2112',
    }));
    await metering.insertChargePrices(db(), chargePrices);
    expect(await count('power.charge_prices')).toBe(chargePrices.length);
    const energy = range(past(4)).map((i) => ({
      metering_point_id: point,
      start_at: hour(i),
      quantity_kwh: '0.412',
      quality: 'A04',
    }));
    expect(await metering.insertEnergy(db(), 'power.consumption', energy)).toBe(energy.length);
  });

  it('solar readings (8), household charges (13) and spot prices (5)', async () => {
    const readings = range(past(8)).map((i) => ({
      start_at: hour(i),
      energy_kwh: '1.234',
      power_w: '1234',
      voltage_v: '230.1',
      current_a: '5.36',
      frequency_hz: '50.01',
      temperature_c: '31.5',
      total_yield_kwh: '10234.5',
    }));
    expect(await solar.insertSolar(db(), readings)).toBe(readings.length);
    const charges = range(past(13)).map((i) => ({
      kind: 'tariff' as const,
      role: 'other' as const,
      appliesTo: 'consumption' as const,
      ownerGln: '5790000705689',
      owner: 'Radius Elnet A/S',
      name: `Tarif ${i}`,
      code: `T${i}`,
      source: 'meter' as const,
      pricesFrom: 'meter' as const,
      validFrom: '2026-01-01T00:00:00',
      validTo: null,
      resolution: 'PT1H',
      prices: Array.from({ length: 24 }, () => '0.0001'),
    }));
    await household.insertHouseholdCharges(db(), charges);
    expect(await count('power.household_charges')).toBe(charges.length);
    const spot = range(past(5)).map((i) => ({
      timeUtc: new Date(Date.UTC(2020, 0, 1) + Math.floor(i / 2) * 900_000),
      area: i % 2 === 0 ? ('DK1' as const) : ('DK2' as const),
      minutes: 15 as const,
      priceDkk: '0.5',
      priceEur: '0.07',
    }));
    expect(await prices.insertPrices(db(), spot)).toBe(spot.length);
    await t.database.check();
  });
});
