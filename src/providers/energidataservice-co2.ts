import { DateTime } from 'luxon';
import { Type } from 'typebox';
import type { FeedHealth } from '../shared/health.js';
import { DANISH_ZONE } from '../shared/danish-time.js';
import type { OnBusy } from './budget.js';
import { answer, malformed } from './answer.js';
import { LocalTime, PRICE_AREAS, PROVIDER_NAME, type PriceArea } from './energidataservice.js';
import { HttpProvider, type ProviderDeps } from './http.js';
import { CO2_G_KWH, inRange } from './plausible.js';

/** The prognosis (issued every 15 minutes, at least 9 hours ahead) and the realized values. */
export type Co2Dataset = 'CO2EmisProg' | 'CO2Emis';

/** One 5-minute value as the provider published it; g/kWh as the exact decimal it prints as. */
export interface Co2Row {
  timeUtc: Date;
  area: PriceArea;
  gKwh: string;
}

const FIVE_MINUTES_MS = 300_000;
const HOUR_MS = 3_600_000;

/** The answer's shape; anything else is a malformed answer, and nothing of it is stored. */
const Co2Answer = answer(
  PROVIDER_NAME,
  Type.Object({
    records: Type.Array(
      Type.Object({
        Minutes5UTC: LocalTime,
        PriceArea: Type.String(),
        CO2Emission: Type.Union([Type.Number(), Type.Null()]),
      }),
    ),
  }),
);

/** Danish wall time as the provider reads `start` and `end` by default. */
const localText = (t: Date) => DateTime.fromJSDate(t, { zone: DANISH_ZONE }).toFormat("yyyy-MM-dd'T'HH:mm");

/**
 * Energi Data Service's CO₂ datasets, `CO2EmisProg` and `CO2Emis` (fields Minutes5UTC,
 * Minutes5DK, PriceArea, CO2Emission), under the provider's one call budget; reported in its own
 * /health feed.
 */
export class Co2Provider {
  private readonly http: HttpProvider;
  private readonly health: FeedHealth | undefined;

  constructor(
    opts: ProviderDeps & {
      baseUrl: string;
      timeoutMs: number;
      health?: FeedHealth;
      retries?: number;
      initialDelayMs?: number;
    },
  ) {
    this.health = opts.health;
    this.http = new HttpProvider({
      ...opts,
      name: PROVIDER_NAME,
      baseUrl: opts.baseUrl.replace(/\/$/, ''),
      retries: opts.retries ?? 3,
      // The same provider and limits as the prices (energidataservice.ts).
      initialDelayMs: opts.initialDelayMs ?? 1000,
      maxRetryAfterMs: 30_000,
      rateLimitPauseMs: 5 * 60_000,
    });
  }

  /**
   * The 5-minute values of [from, to) for both areas. The request asks for an hour more on either
   * side, in Danish wall time (the provider's default), so that the repeated hour of the autumn
   * change is covered whichever of the two the provider takes; rows outside the request are
   * dropped and counted, as are rows off the 5-minute grid or outside CO2_G_KWH.
   */
  async emissions(
    dataset: Co2Dataset,
    from: Date,
    to: Date,
    signal?: AbortSignal,
    onBusy: OnBusy = 'wait',
  ): Promise<Co2Row[]> {
    const start = new Date(from.getTime() - HOUR_MS);
    const end = new Date(to.getTime() + HOUR_MS);
    const body = await this.http.get<unknown>(`/dataset/${dataset}`, {
      query: {
        start: localText(start),
        end: localText(end),
        filter: JSON.stringify({ PriceArea: PRICE_AREAS }),
        sort: 'Minutes5UTC asc',
        limit: 0,
      },
      signal,
      onBusy,
    });
    let rows: Co2Row[];
    try {
      rows = parseCo2(body);
    } catch (e) {
      // The call succeeded and said so; an answer that cannot be read is refused whole, and the
      // feed is not ok until an answer is taken.
      this.health?.failure(e);
      this.health?.reject(`${dataset}: ${(e as Error).message}`);
      throw e;
    }
    const kept: Co2Row[] = [];
    const refused: string[] = [];
    for (const r of rows) {
      const t = r.timeUtc.getTime();
      if (t < start.getTime() || t >= end.getTime())
        refused.push(`${r.timeUtc.toISOString()} outside the request`);
      else if (t % FIVE_MINUTES_MS !== 0) refused.push(`${r.timeUtc.toISOString()} off the 5-minute grid`);
      else if (!inRange(r.gKwh, CO2_G_KWH))
        refused.push(`${r.gKwh} g/kWh outside ${CO2_G_KWH.min}..${CO2_G_KWH.max}`);
      else if (t >= from.getTime() && t < to.getTime()) kept.push(r);
    }
    if (refused.length > 0)
      this.health?.reject(`${refused.length} ${dataset} rows refused, e.g. ${refused[0]}`, refused.length);
    return kept;
  }
}

/** The rows of a CO₂ answer, checked against its schema; rows of other areas and without a value are skipped. */
export function parseCo2(body: unknown): Co2Row[] {
  const out: Co2Row[] = [];
  for (const r of Co2Answer.parse(body).records) {
    if (!(PRICE_AREAS as readonly string[]).includes(r.PriceArea)) continue;
    if (r.CO2Emission === null) continue;
    const timeUtc = new Date(`${r.Minutes5UTC}Z`);
    if (Number.isNaN(timeUtc.getTime())) throw malformed(PROVIDER_NAME, `Minutes5UTC "${r.Minutes5UTC}"`);
    out.push({ timeUtc, area: r.PriceArea as PriceArea, gKwh: String(r.CO2Emission) });
  }
  return out;
}
