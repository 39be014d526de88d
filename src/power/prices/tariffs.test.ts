import { describe, expect, it } from 'vitest';
import type { TariffRecord } from '../../providers/energidataservice.js';
import { backfillChunks } from './command.js';
import { combineTariffs } from './tariffs.js';

const rec = (code: string, validFrom: string, validTo: string | null, price: string): TariffRecord => ({
  gln: '5790001089030',
  chargeTypeCode: code,
  validFrom,
  validTo,
  hourly: Array(24).fill(price) as string[],
});

describe('combineTariffs', () => {
  it('adds discounts published with their own dates, cutting periods at every boundary', () => {
    const periods = combineTariffs(
      [
        rec('CD', '2023-01-01T00:00:00', '2023-04-01T00:00:00', '1.05619'),
        rec('CD', '2023-04-01T00:00:00', null, '0.432225'),
        rec('CD', '2022-11-01T00:00:00', '2023-01-01T00:00:00', '1.015888'),
        rec('CD R', '2022-12-01T00:00:00', '2023-01-01T00:00:00', '-1.015888'),
        rec('CD R', '2023-01-01T00:00:00', null, '0'),
      ],
      ['CD', 'CD R'],
    );
    expect(
      periods.map((p) => [p.validFrom.slice(0, 10), p.validTo?.slice(0, 10) ?? null, p.hourly[0]]),
    ).toEqual([
      ['2022-11-01', '2022-12-01', '101.5888'],
      ['2022-12-01', '2023-01-01', '0'],
      ['2023-01-01', '2023-04-01', '105.619'],
      ['2023-04-01', null, '43.2225'],
    ]);
  });

  it('prefers the first listed code when two base codes overlap', () => {
    const periods = combineTariffs(
      [
        rec('DC_C_01', '2024-01-01T00:00:00', null, '0.5'),
        rec('DT_C_01', '2024-01-01T00:00:00', null, '0.25'),
      ],
      ['DT_C_01', 'DC_C_01'],
    );
    expect(periods).toHaveLength(1);
    expect(periods[0]!.hourly[5]).toBe('25');
  });
});

describe('backfillChunks', () => {
  it('covers FROM..TO inclusive in ranges of at most 31 days', () => {
    expect(backfillChunks('2024-01-01', '2024-03-05')).toEqual([
      ['2024-01-01', '2024-02-01'],
      ['2024-02-01', '2024-03-03'],
      ['2024-03-03', '2024-03-06'],
    ]);
    expect(backfillChunks('2024-01-01', '2024-01-01')).toEqual([['2024-01-01', '2024-01-02']]);
  });
});
