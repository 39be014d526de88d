import { describe, expect, it } from 'vitest';
import type { TariffRecord } from '../../providers/energidataservice.js';
import { fromMeter, type MeterLink } from './build.js';
import { roleOf, segments } from './periods.js';

const ENERGINET = '5790000432752';
const GRID = '5790000000005';
const hours = (v: string) => Array.from({ length: 24 }, () => v);
const rec = (
  code: string,
  validFrom: string,
  validTo: string | null,
  v: string,
  note = 'Nettarif C time',
): TariffRecord => ({
  gln: GRID,
  chargeTypeCode: code,
  validFrom,
  validTo,
  hourly: hours(v),
  note,
  resolution: 'PT1H',
});

describe('segments', () => {
  it('adds a discount published under the same note to the tariff, each with its own dates', () => {
    const s = segments([
      rec('T', '2026-01-01T00:00:00', null, '0.4'),
      rec('T R', '2026-03-01T00:00:00', '2026-06-01T00:00:00', '-0.05'),
    ]);
    expect(s.map((x) => [x.code, x.validFrom, x.validTo, x.prices[0]])).toEqual([
      ['T', '2026-01-01T00:00:00', '2026-03-01T00:00:00', '0.4'],
      ['T+T R', '2026-03-01T00:00:00', '2026-06-01T00:00:00', '0.35'],
      ['T', '2026-06-01T00:00:00', null, '0.4'],
    ]);
  });

  it('lets a newer record, or a renamed code left open-ended, replace the older one instead of adding', () => {
    const s = segments([
      rec('OLD', '2025-01-01T00:00:00', null, '0.3'),
      rec('NEW', '2026-01-01T00:00:00', null, '0.5'),
    ]);
    expect(s.map((x) => [x.code, x.validFrom, x.validTo, x.prices[0]])).toEqual([
      ['OLD', '2025-01-01T00:00:00', '2026-01-01T00:00:00', '0.3'],
      ['NEW', '2026-01-01T00:00:00', null, '0.5'],
    ]);
  });

  it('joins a record a day into one period while the prices stay, and cuts at a window', () => {
    const days = ['2026-05-01', '2026-05-02', '2026-05-03', '2026-05-04'].map((d, i, all) =>
      rec('46', `${d}T00:00:00`, `${all[i + 1] ?? '2026-05-05'}T00:00:00`, i < 3 ? '0.2' : '0.25'),
    );
    expect(segments(days).map((x) => [x.validFrom, x.validTo, x.prices[0]])).toEqual([
      ['2026-05-01T00:00:00', '2026-05-04T00:00:00', '0.2'],
      ['2026-05-04T00:00:00', '2026-05-05T00:00:00', '0.25'],
    ]);
    expect(
      segments(days, { from: '2026-05-02T00:00:00', to: '2026-05-04T12:00:00' }).map((x) => [
        x.validFrom,
        x.validTo,
      ]),
    ).toEqual([
      ['2026-05-02T00:00:00', '2026-05-04T00:00:00'],
      ['2026-05-04T00:00:00', '2026-05-04T12:00:00'],
    ]);
  });
});

describe('roleOf', () => {
  it("knows Energinet's charges by code, then by name; every other owner's tariff is the grid tariff", () => {
    expect(roleOf('tariff', ENERGINET, ENERGINET, '41000', 'x')).toBe('system');
    expect(roleOf('tariff', ENERGINET, ENERGINET, null, 'Transmissions nettarif')).toBe('transmission');
    expect(roleOf('tariff', ENERGINET, ENERGINET, null, 'Reduceret elafgift')).toBe('electricity_tax');
    expect(roleOf('tariff', ENERGINET, ENERGINET, null, 'Balancetarif for forbrug')).toBe('other');
    expect(roleOf('tariff', GRID, ENERGINET, null, 'Nettarif C time')).toBe('grid');
    expect(roleOf('subscription', GRID, ENERGINET, null, 'Netabo')).toBe('subscription');
  });
});

describe('fromMeter', () => {
  const link = (owner: string, name: string, from: string, prices = ['0.3']): MeterLink => ({
    kind: 'tariff',
    appliesTo: 'consumption',
    name,
    ownerGln: owner,
    periodType: prices.length === 24 ? 'PT1H' : 'P1D',
    validFrom: new Date(from),
    validTo: null,
    prices,
  });

  it("keeps a charge DatahubPricelist lacks at the meter's prices from its validFromDate, in Danish time", () => {
    const [c] = fromMeter(
      [link(ENERGINET, 'Balancetarif for forbrug', '2014-12-31T23:00:00Z', ['0.00229'])],
      new Map(),
      ENERGINET,
    );
    expect(c).toMatchObject({
      role: 'other',
      code: null,
      pricesFrom: 'meter',
      validFrom: '2015-01-01T00:00:00',
      validTo: null,
    });
    expect(c!.prices).toEqual(hours('0.00229'));
  });

  it('gives a production point (E18) charge to production, never to the consumption price', () => {
    const [c] = fromMeter(
      [{ ...link(ENERGINET, 'Indfødningstarif', '2026-01-01T00:00:00Z'), appliesTo: 'production' }],
      new Map(),
      ENERGINET,
    );
    expect(c!.appliesTo).toBe('production');
  });

  it("names every charge's owner by name, also of a charge DatahubPricelist lacks (the meter gives only a GLN)", () => {
    const subscription = (owner: string, name: string): MeterLink => ({
      ...link(owner, name, '2026-01-01T00:00:00Z', ['45']),
      kind: 'subscription',
      periodType: 'P1M',
    });
    const owners = (links: MeterLink[], history = new Map<string, TariffRecord[]>()) =>
      fromMeter(links, history, ENERGINET).map((c) => [c.name, c.owner]);
    const netX = new Map([
      [
        `${GRID}|tariff|Nettarif C time`,
        [{ ...rec('T', '2026-01-01T00:00:00', null, '0.4'), owner: 'Net X A/S' }],
      ],
    ]);
    // the pricelist's name of the owner's other charge; Energinet's own name
    expect(
      owners(
        [
          link(GRID, 'Nettarif C time', '2026-01-01T00:00:00Z'),
          subscription(GRID, 'Netabo C'),
          link(ENERGINET, 'Balancetarif for forbrug', '2026-01-01T00:00:00Z'),
        ],
        netX,
      ),
    ).toEqual([
      ['Nettarif C time', 'Net X A/S'],
      ['Netabo C', 'Net X A/S'],
      ['Balancetarif for forbrug', 'Energinet Systemansvar A/S (SYO)'],
    ]);
    // the shipped list of grid companies
    expect(owners([subscription('5790000705689', 'Netabonnement')])).toEqual([
      ['Netabonnement', 'Radius Elnet A/S'],
    ]);
    // no name known anywhere: none made up (the bill then shows the GLN)
    expect(owners([subscription('5790000000999', 'Abonnement')])).toEqual([['Abonnement', null]]);
  });
});
