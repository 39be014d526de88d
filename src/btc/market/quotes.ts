import { Big } from 'big.js';
import type { Logger } from 'pino';
import type { Db } from '../../db/schema.js';
import { ProviderError } from '../../providers/http.js';
import type { StrikeClient, StrikeQuote } from '../../providers/strike.js';
import type { Clock } from '../../shared/clock.js';
import { danishDate } from '../../shared/danish-time.js';
import { Refusal, unavailable } from '../../shared/refusal.js';
import type { Job } from '../../jobs/job.js';
import { premiumOf, SPOT_MAX_AGE_MS } from './premium.js';
import * as repo from './repository.js';
import type { QuoteRow } from './repository.js';
import { logFailedRound } from '../../providers/errors.js';

export const QUOTE_CHANNEL = 'btc_quote';

export interface QuoteOptions {
  intervalMs: number;
  maxBackoffMs: number;
  /** How long to leave the broker alone after a 429 that names no Retry-After. */
  rateLimitBackoffMs: number;
}

export interface QuoteDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  shutdown: AbortSignal;
  /** The EUR amount quoted, fee included (QUOTE_TOTAL_EUR). */
  quoteTotalEur: string;
}

function wrong(message: string): ProviderError {
  return new ProviderError('strike', message, { transient: false, status: 200 });
}

/** The amount to quote before the fee: total − fee, to the cent, never above the total. */
export function preFeeAmount(totalEur: string, feeEur: string): string {
  const pre = new Big(totalEur).minus(feeEur);
  if (pre.lte(0)) throw wrong(`the fee ${feeEur} EUR is not below the total ${totalEur} EUR`);
  return pre.round(2, Big.roundDown).toFixed(2);
}

/** The sats a quote buys: target.amount (BTC, 8 decimals) × 1e8, as an exact integer. */
export function satsOf(quote: StrikeQuote): number {
  if (quote.target.currency !== 'BTC') throw wrong(`quote target is ${quote.target.currency}, not BTC`);
  return Number(new Big(quote.target.amount).times(1e8).round(0, Big.roundDown).toFixed(0));
}

/**
 * Polls the broker every interval on the leader: the rates ticker (stored whole) and a real
 * quote for the pre-fee amount, with the fee learned from the day's first quote. Failures
 * back off exponentially, and a 429 at least as long as the broker asks.
 */
export class QuoteFeed {
  private blockedUntil = 0;
  private inflight: Promise<QuoteRow> | null = null;
  /** The client was given the latest stored quote to judge the first answers by. */
  private primed = false;

  constructor(
    private readonly deps: QuoteDeps,
    private readonly client: StrikeClient | null,
    private readonly offReason: string | null,
    private readonly opts: QuoteOptions,
    private readonly onStored: (row: QuoteRow) => void,
  ) {}

  /** The poller, a job of the holder of the btc poller lock; none while the feed is off. */
  job(): Job | null {
    if (!this.client) return null;
    const { intervalMs, maxBackoffMs } = this.opts;
    return {
      name: 'quotes',
      schedule: {
        everyMs: intervalMs,
        afterFailure: (failures) =>
          Math.max(
            Math.min(intervalMs * 2 ** failures, maxBackoffMs),
            this.blockedUntil - this.deps.clock.monotonicMs(),
          ),
      },
      lock: 'btcPollers',
      round: async () => {
        await this.quoteNow();
      },
      failed: (e, { retryInMs }) =>
        logFailedRound(this.deps.log, e, 'quote feed: poll failed', { retryInMs }),
    };
  }

  /** Settles once no quote is being obtained. */
  async idle(): Promise<void> {
    await this.inflight?.catch(() => {});
  }

  /** A fresh real quote now (POST /api/quote); concurrent callers share one. */
  async quoteNow(): Promise<QuoteRow> {
    if (!this.client) throw unavailable(`the quote feed is off: ${this.offReason}`);
    const wait = this.blockedUntil - this.deps.clock.monotonicMs();
    if (wait > 0) {
      const s = Math.ceil(wait / 1000);
      throw new Refusal('provider-unavailable', `the strike provider rate-limited us; retry in ${s} s`, s);
    }
    this.inflight ??= this.poll(this.client).finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async poll(client: StrikeClient): Promise<QuoteRow> {
    const signal = this.deps.shutdown;
    try {
      if (!this.primed) await this.prime(client);
      const rates = await client.ticker(signal);
      const total = this.deps.quoteTotalEur;
      const fee = await this.feeOfToday(client, total);
      const preFee = preFeeAmount(total, fee);
      const quote = await client.quote(
        { sell: 'EUR', buy: 'BTC', amount: preFee, currency: 'EUR', feePolicy: 'EXCLUSIVE' },
        signal,
      );
      const { db } = this.deps;
      const at = this.deps.clock.now();
      const polled = { at, total_eur: total, fee_eur: fee, pre_fee_eur: preFee, quote_sats: satsOf(quote) };
      const spot = await repo.spotAt(db, at, SPOT_MAX_AGE_MS);
      const row = { ...polled, rates, ...premiumOf(polled, spot ?? null) };
      const id = await repo.insertQuote(db, row);
      const stored = { id, ...row };
      this.onStored(stored);
      await repo.notify(db, QUOTE_CHANNEL, String(id));
      return stored;
    } catch (e) {
      if (e instanceof ProviderError && e.status === 429) {
        const backoff = e.opts.retryAfterMs ?? this.opts.rateLimitBackoffMs;
        this.blockedUntil = this.deps.clock.monotonicMs() + backoff;
      }
      throw e;
    }
  }

  /** The latest stored quote judges the first answers after a start (its ticker and its price). */
  private async prime(client: StrikeClient): Promise<void> {
    const last = await repo.latestQuote(this.deps.db);
    if (last && last.quote_sats > 0)
      client.accepted(last.rates, {
        source: { amount: last.pre_fee_eur, currency: 'EUR' },
        target: { amount: new Big(last.quote_sats).div(1e8).toFixed(8), currency: 'BTC' },
      });
    this.primed = true;
  }

  /** Learned once per Danish day from an INCLUSIVE quote for the total, and kept in the database. */
  private async feeOfToday(client: StrikeClient, total: string): Promise<string> {
    const { db } = this.deps;
    const date = danishDate(this.deps.clock.now());
    const known = await repo.feeOf(db, date, total);
    if (known !== undefined) return known;
    const q = await client.quote(
      { sell: 'EUR', buy: 'BTC', amount: total, currency: 'EUR', feePolicy: 'INCLUSIVE' },
      this.deps.shutdown,
    );
    if (q.fee.currency !== 'EUR') throw wrong(`quote fee is in ${q.fee.currency}, not EUR`);
    await repo.saveFee(db, {
      date,
      total_eur: total,
      fee_eur: q.fee.amount,
      learned_at: this.deps.clock.now(),
    });
    return (await repo.feeOf(db, date, total)) ?? q.fee.amount;
  }
}
