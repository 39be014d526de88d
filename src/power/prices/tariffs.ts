import Big from 'big.js';
import type { Logger } from 'pino';
import type { Db } from '../../db/schema.js';
import type { EnergiDataService, TariffRecord } from '../../providers/energidataservice.js';
import * as repo from './repository.js';

/** Charge codes of the C-customer (household) tariff of known grid companies; `R` codes are discounts, added. */
export const TARIFF_CODES: Record<string, string[]> = {
  '5790000705689': ['DT_C_01', 'DC_C_01'],
  '5790000705184': ['30TR_C_ET'],
  '5790001089030': ['CD', 'CD R'],
  '5790000681327': ['RAH-C'],
  '5790000392261': ['C'],
  '5790000706686': ['46'],
  '5790000610099': ['TCL<100_02'],
  '5790000704842': ['C_FBTNTR_B', 'C_FBTNTR_B_R'],
};

/**
 * Loads a grid company's tariff periods from DatahubPricelist and gives hourly rows written
 * without a tariff theirs. Returns the periods stored and the rows that gained a tariff.
 */
export async function refreshTariffs(
  deps: { db: Db; provider: EnergiDataService; log: Logger; signal: AbortSignal },
  gln: string,
): Promise<{ periods: number; filled: number }> {
  const codes = TARIFF_CODES[gln];
  if (!codes) {
    deps.log.warn({ gln }, 'no known tariff codes for this grid company; tariffs not refreshed');
    return { periods: 0, filled: 0 };
  }
  const periods = combineTariffs(await deps.provider.tariffs(gln, codes, deps.signal), codes);
  if (periods.length === 0) return { periods: 0, filled: 0 };
  const filled = await deps.db.transaction().execute(async (trx) => {
    await repo.deleteTariffPeriods(trx, gln, 'DatahubPricelist');
    for (const p of periods) await repo.upsertTariffPeriod(trx, { ...p, source: 'DatahubPricelist' });
    return repo.fillMissingTariffs(trx, gln);
  });
  return { periods: periods.length, filled };
}

/**
 * Cuts the records into consecutive periods at every ValidFrom and ValidTo: each period takes
 * the base tariff valid through it (codes are listed newest first) plus every discount code
 * (suffix R) valid through it, which DSOs publish with their own dates. Prices become øre/kWh.
 */
export function combineTariffs(records: TariffRecord[], codes: string[]): TariffRecord[] {
  const isDiscount = (code: string) => /[ _]R$/.test(code);
  const rank = (r: TariffRecord) => codes.indexOf(r.chargeTypeCode);
  const base = records.filter((r) => !isDiscount(r.chargeTypeCode)).sort((a, b) => rank(a) - rank(b));
  const discounts = records.filter((r) => isDiscount(r.chargeTypeCode));
  const points = [
    ...new Set(records.flatMap((r) => (r.validTo ? [r.validFrom, r.validTo] : [r.validFrom]))),
  ].sort();
  const out: TariffRecord[] = [];
  points.forEach((from, i) => {
    const covers = (r: TariffRecord) => r.validFrom <= from && (r.validTo === null || r.validTo > from);
    const main = base.find(covers);
    if (!main) return;
    const extra = discounts.filter(covers);
    out.push({
      gln: main.gln,
      chargeTypeCode: [main, ...extra].map((r) => r.chargeTypeCode).join('+'),
      validFrom: from,
      validTo: points[i + 1] ?? null,
      hourly: main.hourly.map((v, h) =>
        extra
          .reduce((sum, d) => sum.plus(d.hourly[h] ?? '0'), Big(v))
          .times(100)
          .toString(),
      ),
    });
  });
  return out;
}
