import type { Logger } from 'pino';
import type { Db } from '../../db/schema.js';
import type { EnergiDataService } from '../../providers/energidataservice.js';
import * as repo from './repository.js';

/**
 * Energinet's D03 charge codes in DatahubPricelist and what each is on the bill. Confirmed
 * against DataHub's own charge seed data (40000 "Transmissions nettarif") and the public
 * integrations reading Energinet's GLN (41000 "Systemtarif", EA-001 "Elafgift").
 */
export const ENERGINET_CHARGES = {
  '40000': 'transmission',
  '41000': 'system',
  'EA-001': 'electricity_tax',
} as const;

export type ChargeCode = keyof typeof ENERGINET_CHARGES;

/**
 * Loads Energinet's charge periods (flat P1D records repeat Price1 in every hour) and gives
 * every stored hour the charges valid at it. Returns the periods stored and the hours changed.
 */
export async function refreshCharges(
  deps: { db: Db; provider: EnergiDataService; log: Logger; signal: AbortSignal },
  gln: string,
): Promise<{ periods: number; changed: number }> {
  const codes = Object.keys(ENERGINET_CHARGES) as ChargeCode[];
  const records = (await deps.provider.tariffs(gln, codes, deps.signal)).filter(
    (r): r is typeof r & { chargeTypeCode: ChargeCode } => r.chargeTypeCode in ENERGINET_CHARGES,
  );
  if (records.length === 0) {
    deps.log.warn({ gln }, 'DatahubPricelist has no Energinet charges for this GLN; charges not refreshed');
    return { periods: 0, changed: 0 };
  }
  const changed = await deps.db.transaction().execute(async (trx) => {
    await repo.deleteChargePeriods(trx, gln, 'DatahubPricelist');
    for (const r of records)
      await repo.upsertChargePeriod(trx, {
        gln,
        charge: ENERGINET_CHARGES[r.chargeTypeCode],
        code: r.chargeTypeCode,
        validFrom: r.validFrom,
        validTo: r.validTo,
        hourly: r.hourly,
        source: 'DatahubPricelist',
      });
    return repo.applyCharges(trx, gln);
  });
  return { periods: records.length, changed };
}
