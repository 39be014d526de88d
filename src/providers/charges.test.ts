import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeEloverblik, HOUSEHOLD, meterSubscription, meterTariff } from '../../test/fakes/eloverblik.js';
import { FakeEnergiDataService, RADIUS_GLN, tariffRecord } from '../../test/fakes/energidataservice.js';
import { testDeps } from '../../test/support/providers.js';
import { FeedHealth } from '../shared/health.js';
import { storableText } from '../shared/text.js';
import { EloverblikClient, RefusedCharges } from './eloverblik.js';
import { parseMeteringPoints } from './eloverblik-parse.js';
import { EnergiDataService } from './energidataservice.js';
import { ProviderError } from './http.js';
import { chargeRefusal } from './plausible.js';
import { problemOf } from '../http/problem.js';

/** A household's charges are untrusted input: bounds real charges never cross, and names that can be stored as sent. */

const tariff = (price: string, name = 'Nettarif C time') => ({
  kind: 'tariff' as const,
  name,
  ownerGln: RADIUS_GLN,
  prices: [price],
});

describe('the bounds of a charge', () => {
  it('takes every tariff of a household, a discount of a few øre and one of a whole tariff, within −10..+10 DKK/kWh', () => {
    for (const p of ['0.0976', '0.8788', '2.5', '0.008', '-0.01', '-1.015888', '-10', '10', '0'])
      expect([p, chargeRefusal(tariff(p))]).toEqual([p, null]);
  });

  it('refuses −1,000 DKK/kWh and anything past the bounds', () => {
    for (const p of ['-1000', '-10.0001', '10.01', '999893.8'])
      expect(chargeRefusal(tariff(p))).toMatch(/outside its bounds -10\.\.10/);
  });

  it('takes a subscription of 0..10,000 DKK and a fee of 0..50,000 DKK; none is negative', () => {
    const of = (kind: 'subscription' | 'fee', price: string) =>
      chargeRefusal({ kind, name: 'Netabonnement', ownerGln: RADIUS_GLN, prices: [price] });
    expect([of('subscription', '58.25'), of('subscription', '0'), of('subscription', '10000')]).toEqual([
      null,
      null,
      null,
    ]);
    expect(of('subscription', '-99999')).toMatch(/subscription "Netabonnement": -99999 DKK is outside/);
    expect(of('subscription', '-0.01')).toMatch(/outside/);
    expect(of('subscription', '10000.01')).toMatch(/outside/);
    expect(of('fee', '50000')).toBeNull();
    expect(of('fee', '50001')).toMatch(/outside its bounds 0\.\.50000/);
  });

  it('refuses a name that cannot be stored as sent (two lone surrogates would merge), and an owner that is no GLN', () => {
    expect(chargeRefusal(tariff('0.3', 'Nettarif \uD800'))).toMatch(/unpaired UTF-16 surrogate \(U\+D800\)/);
    expect(chargeRefusal(tariff('0.3', 'Nettarif \uDBFF'))).toMatch(/U\+DBFF/);
    expect(chargeRefusal(tariff('0.3', 'Net\u0000tarif'))).toMatch(/NUL/);
    expect(chargeRefusal({ ...tariff('0.3'), ownerGln: '=cmd' })).toMatch(/not a 13-digit GLN/);
    // a name a spreadsheet would run is text like any other: the CSV writer neutralises it
    expect(chargeRefusal(tariff('0.3', '=HYPERLINK("http://x","y")'))).toBeNull();
  });

  it('stores shown text with U+FFFD for what the database cannot keep, a pair of surrogates as it is', () => {
    expect(storableText('a\u0000b\uD800c\uDC00d')).toBe('a\uFFFDb\uFFFDc\uFFFDd');
    expect(storableText('Tølløse 😀')).toBe('Tølløse 😀');
    const [point] = parseMeteringPoints({
      result: [{ meteringPointId: HOUSEHOLD[0]!.id, typeOfMP: 'E17', cityName: 'T\u0000ølløse\uDFFF' }],
    });
    expect(point!.cityName).toBe('T\uFFFDølløse\uFFFD');
  });
});

describe('answers refused whole', () => {
  let elo: FakeEloverblik;
  let eds: FakeEnergiDataService;
  let health: FeedHealth;
  let client: EloverblikClient;
  const E17 = HOUSEHOLD[0]!.id;
  const from = '2026-01-01T00:00:00.000Z';

  beforeAll(async () => {
    [elo, eds] = await Promise.all([FakeEloverblik.start(), FakeEnergiDataService.start()]);
  });
  afterAll(() => Promise.all([elo.close(), eds.close()]));
  beforeEach(() => {
    health = new FeedHealth('metering', true);
    client = new EloverblikClient({
      ...testDeps('eloverblik'),
      tokenBudget: testDeps('eloverblik-token').budget,
      baseUrl: elo.url,
      timeoutMs: 1_000,
      refreshToken: async () => elo.refreshToken,
      health,
    });
  });

  it('Eloverblik: a tariff of −1,000 DKK/kWh and a subscription of −99,999 DKK refuse the whole answer, counted', async () => {
    elo.chargeLists.set(E17, {
      subscriptions: [
        meterSubscription({ name: 'Netabo', owner: RADIUS_GLN, validFrom: from, price: -99_999 }),
      ],
      fees: [],
      tariffs: [
        meterTariff({ name: 'Nettarif C time', owner: RADIUS_GLN, validFrom: from, prices: [-1_000] }),
        meterTariff({ name: 'Systemtarif', owner: RADIUS_GLN, validFrom: from, prices: [0.072] }),
      ],
    });
    const e = await client.charges([E17]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RefusedCharges);
    expect((e as RefusedCharges).why).toMatch(
      /subscription "Netabo": -99999.*tariff "Nettarif C time": -1000/,
    );
    expect(health.rejected).toBe(2);
    expect(health.ok).toBe(false);
  });

  it('Eloverblik: two names that differ only in a lone surrogate refuse the answer rather than merge', async () => {
    elo.chargeLists.set(E17, {
      subscriptions: [],
      fees: [],
      tariffs: ['Tarif \uD800', 'Tarif \uD801'].map((name) =>
        meterTariff({ name, owner: RADIUS_GLN, validFrom: from, prices: [0.1] }),
      ),
    });
    await expect(client.charges([E17])).rejects.toThrow(/unpaired UTF-16 surrogate \(U\+D800\)/);
    expect(health.rejected).toBe(2);
  });

  it('DatahubPricelist: a record outside the bounds refuses the answer (502), counted', async () => {
    const provider = new EnergiDataService({
      ...testDeps('eds'),
      baseUrl: eds.url,
      timeoutMs: 1_000,
      health,
    });
    eds.tariffs = [
      tariffRecord({ validFrom: '2026-01-01T00:00:00', validTo: null, hourly: Array(24).fill(-1_000) }),
    ];
    const e = await provider
      .pricelist({ GLN_Number: [RADIUS_GLN], ChargeType: ['D03'], Note: ['Nettarif C time'] })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect(problemOf(e)!.status).toBe(502);
    expect((e as ProviderError).message).toMatch(/implausible DatahubPricelist answer refused: tariff/);
    expect(health.rejected).toBe(1);
    eds.tariffs = [
      tariffRecord({ validFrom: '2026-01-01T00:00:00', validTo: null, hourly: Array(24).fill(0.3) }),
    ];
    const ok = await provider.pricelist({ GLN_Number: [RADIUS_GLN], ChargeType: ['D03'] });
    expect(ok).toHaveLength(1);
  });
});
