import { randomUUID } from 'node:crypto';
import type { FeedHealth } from '../shared/health.js';
import type { OnBusy } from './budget.js';
import { Type } from 'typebox';
import { answer, malformed } from './answer.js';
import { HttpProvider, type ProviderDeps } from './http.js';
import { BTC_FIAT, CLOCK_SKEW_MS, FIAT_BTC, JumpGuard, feeRefusal, futureRefusal } from './plausible.js';

/** 1 `sourceCurrency` = `amount` `targetCurrency`; amounts stay decimal strings, as sent. */
export interface StrikeRate {
  amount: string;
  sourceCurrency: string;
  targetCurrency: string;
}

export interface StrikeMoney {
  amount: string;
  currency: string;
}

export interface StrikeQuote {
  id: string;
  source: StrikeMoney;
  target: StrikeMoney;
  fee: StrikeMoney;
  /** When the broker made it, if it said (and the date is readable). */
  created: Date | null;
  validUntil: string | null;
}

export interface QuoteRequest {
  sell: string;
  buy: string;
  amount: string;
  currency: string;
  feePolicy: 'INCLUSIVE' | 'EXCLUSIVE';
}

const STRIKE = 'strike';
const Decimal = Type.String({ pattern: '^\\d+(\\.\\d+)?$', 'x-refused': 'is not a decimal string' });
const Money = Type.Object({ amount: Decimal, currency: Type.String() });
/** `GET /v1/rates/ticker`: 1 sourceCurrency = amount targetCurrency, for each pair it quotes. */
const Ticker = answer(
  STRIKE,
  Type.Array(Type.Object({ amount: Decimal, sourceCurrency: Type.String(), targetCurrency: Type.String() })),
);
/** `POST /v1/currency-exchange-quotes`; `created` and `validUntil` are read when they are text. */
const Quote = answer(
  STRIKE,
  Type.Object({
    id: Type.String(),
    source: Money,
    target: Money,
    fee: Money,
    created: Type.Optional(Type.Unknown()),
    validUntil: Type.Optional(Type.Unknown()),
  }),
);

export function parseTicker(body: unknown): StrikeRate[] {
  return Ticker.parse(body, 'the rates ticker').map((r) => ({
    amount: r.amount,
    sourceCurrency: r.sourceCurrency,
    targetCurrency: r.targetCurrency,
  }));
}

function dateOrNull(v: unknown): Date | null {
  if (typeof v !== 'string') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The guard's key and range of a ticker entry or a quote's price: BTC in fiat, or fiat in BTC. */
function priceKey(source: string, target: string) {
  return { key: `${source}→${target}`, range: source === 'BTC' ? BTC_FIAT : FIAT_BTC };
}

export function parseQuote(body: unknown): StrikeQuote {
  const q = Quote.parse(body, 'the quote');
  const money = (m: StrikeMoney) => ({ amount: m.amount, currency: m.currency });
  return {
    id: q.id,
    source: money(q.source),
    target: money(q.target),
    fee: money(q.fee),
    created: dateOrNull(q.created),
    validUntil: typeof q.validUntil === 'string' ? q.validUntil : null,
  };
}

/**
 * Strike's rates ticker and currency-exchange quotes (`/v1/...`). Calls are not retried
 * here: the poller owns the cadence and its back-off, and a quote retried with a fresh key
 * would be a second quote.
 */
export class StrikeClient {
  private readonly http: HttpProvider;
  /** BTC rates and quote prices may not move over 2× from the last accepted unless a second answer agrees. */
  private readonly guard = new JumpGuard();
  private readonly health: FeedHealth | undefined;
  private readonly clock: ProviderDeps['clock'];

  constructor(
    opts: ProviderDeps & { baseUrl: string; apiKey: string; timeoutMs: number; health?: FeedHealth },
  ) {
    this.health = opts.health;
    this.clock = opts.clock;
    this.http = new HttpProvider({
      clock: opts.clock,
      budget: opts.budget,
      maxBytes: opts.maxBytes,
      name: STRIKE,
      baseUrl: opts.baseUrl.replace(/\/$/, ''),
      timeoutMs: opts.timeoutMs,
      retries: 0,
      health: opts.health,
      headers: () => ({ authorization: `Bearer ${opts.apiKey}` }),
    });
  }

  /** `onBusy`: when the budget is spent, wait for a slot (the default) or refuse at once. */
  async ticker(signal?: AbortSignal, onBusy: OnBusy = 'wait'): Promise<StrikeRate[]> {
    const rates = parseTicker(await this.http.get<unknown>('/v1/rates/ticker', { signal, onBusy }));
    const held = rates
      .filter((r) => r.sourceCurrency === 'BTC' || r.targetCurrency === 'BTC')
      .map((r) => {
        const { key, range } = priceKey(r.sourceCurrency, r.targetCurrency);
        return this.guard.check(key, r.amount, range);
      });
    this.refuseHeld(held, 'rates ticker');
    return rates;
  }

  /**
   * The last rates ticker and quote known good (the latest stored quote row): the first answers
   * after a start are judged against them. `quote` is what `target` the `source` amount bought.
   */
  accepted(rates: StrikeRate[], quote?: { source: StrikeMoney; target: StrikeMoney }): void {
    for (const r of rates) {
      if (r.sourceCurrency !== 'BTC' && r.targetCurrency !== 'BTC') continue;
      const { key, range } = priceKey(r.sourceCurrency, r.targetCurrency);
      this.guard.prime(key, r.amount, range);
    }
    if (quote) {
      const { key, range } = priceKey(quote.source.currency, quote.target.currency);
      this.guard.prime(`quote ${key}`, Number(quote.target.amount) / Number(quote.source.amount), range);
    }
  }

  async quote(
    req: QuoteRequest,
    signal?: AbortSignal,
    idempotencyKey = randomUUID(),
    onBusy: OnBusy = 'wait',
  ): Promise<StrikeQuote> {
    const body = {
      sell: req.sell,
      buy: req.buy,
      amount: { amount: req.amount, currency: req.currency, feePolicy: req.feePolicy },
    };
    const answer = await this.http.post<unknown>('/v1/currency-exchange-quotes', body, {
      signal,
      onBusy,
      headers: { 'idempotency-key': idempotencyKey },
    });
    const quote = parseQuote(answer);
    const perUnit = Number(quote.target.amount) / Number(quote.source.amount);
    const { key, range } = priceKey(quote.source.currency, quote.target.currency);
    // A fee outside its bounds is refused before anyone can cache it as the day's fee.
    const fee =
      quote.fee.currency === req.currency
        ? feeRefusal(quote.fee.amount, req.amount)
        : `fee in ${quote.fee.currency}, not ${req.currency}`;
    const created = quote.created && futureRefusal('quote', quote.created, this.clock.now(), CLOCK_SKEW_MS);
    this.refuseHeld(
      [
        fee && `quote ${req.feePolicy} for ${req.amount} ${req.currency}: ${fee}`,
        created || null,
        this.guard.check(`quote ${key}`, perUnit, range),
      ],
      'quote',
    );
    return quote;
  }

  /** An answer with a held-back value is refused whole (it is stored whole), and counted. */
  private refuseHeld(held: (string | null)[], what: string): void {
    const why = held.filter((h) => h !== null).join('; ');
    if (!why) return;
    this.health?.reject(why);
    throw malformed(STRIKE, `implausible ${what}: ${why}`);
  }
}
