import { Big } from 'big.js';
import { randomUUID } from 'node:crypto';
import { FakeHttpServer } from './http.js';

export const STRIKE_KEY = 'strike-test-key-0123';

/** A Strike rates ticker as the broker sends it: both directions per pair, fiat 4 dp, BTC 8 dp. */
export function strikeTicker(btcUsd: string, btcEur: string) {
  const inv = (x: string) => new Big(1).div(x).round(8, Big.roundHalfUp).toFixed(8);
  return [
    { amount: new Big(btcUsd).toFixed(4), sourceCurrency: 'BTC', targetCurrency: 'USD' },
    { amount: inv(btcUsd), sourceCurrency: 'USD', targetCurrency: 'BTC' },
    { amount: new Big(btcEur).toFixed(4), sourceCurrency: 'BTC', targetCurrency: 'EUR' },
    { amount: inv(btcEur), sourceCurrency: 'EUR', targetCurrency: 'BTC' },
    { amount: '1.0000', sourceCurrency: 'USD', targetCurrency: 'USDT' },
  ];
}

interface QuoteBody {
  sell: string;
  buy: string;
  amount: { amount: string; currency: string; feePolicy?: 'INCLUSIVE' | 'EXCLUSIVE' };
}

/**
 * A Strike server: the ticker, and quotes priced at `eurPerBtc` with a fee of `feeRate` of the
 * amount (cents, rounded up) plus `flatFee`. INCLUSIVE: source + fee = amount; EXCLUSIVE
 * (the default): source = amount, the fee on top. target = source / price, 8 dp, rounded down.
 */
export class FakeStrike {
  eurPerBtc = '60000';
  usdPerBtc = '65000';
  feeRate = '0';
  flatFee = '0.55';
  /** Changes the next quote answer (a poisoned answer), then is cleared. */
  tamperNext: ((answer: Record<string, unknown>) => Record<string, unknown>) | null = null;
  /** The broker's clock, which stamps `created` and `validUntil`; tests with an injected clock set it. */
  now: () => Date = () => new Date();
  readonly quotes: { body: QuoteBody; key: string | undefined }[] = [];
  private readonly keys = new Set<string>();

  private constructor(readonly http: FakeHttpServer) {
    http.on('GET', '/v1/rates/ticker', () => ({ json: strikeTicker(this.usdPerBtc, this.eurPerBtc) }));
    http.on('POST', '/v1/currency-exchange-quotes', (req) => {
      if (req.headers.authorization !== `Bearer ${STRIKE_KEY}`)
        return {
          status: 401,
          json: { traceId: 't1', data: { status: 401, code: 'UNAUTHORIZED', message: 'Unauthorized' } },
        };
      const key = req.headers['idempotency-key'] as string | undefined;
      if (key && this.keys.has(key))
        return {
          status: 400,
          json: {
            traceId: 't2',
            data: { status: 400, code: 'DUPLICATE_CURRENCY_EXCHANGE_QUOTE', message: 'duplicate' },
          },
        };
      if (key) this.keys.add(key);
      const body = req.json<QuoteBody>();
      this.quotes.push({ body, key });
      const tamper = this.tamperNext;
      this.tamperNext = null;
      return { json: tamper ? tamper(this.answer(body)) : this.answer(body) };
    });
  }

  static async start(): Promise<FakeStrike> {
    return new FakeStrike(await FakeHttpServer.start());
  }

  get url(): string {
    return this.http.url;
  }

  feeFor(amount: string): Big {
    return new Big(amount).times(this.feeRate).round(2, Big.roundUp).plus(this.flatFee);
  }

  private answer(body: QuoteBody) {
    const amount = new Big(body.amount.amount);
    const inclusive = body.amount.feePolicy === 'INCLUSIVE';
    const fee = inclusive ? this.feeFor(body.amount.amount) : this.feeFor(body.amount.amount);
    const source = inclusive ? amount.minus(fee) : amount;
    const target = source.div(this.eurPerBtc).round(8, Big.roundDown);
    const now = this.now();
    return {
      id: randomUUID(),
      created: now.toISOString(),
      validUntil: new Date(now.getTime() + 30_000).toISOString(),
      source: { amount: source.toFixed(2), currency: body.sell },
      target: { amount: target.toFixed(8), currency: body.buy },
      fee: { amount: fee.toFixed(2), currency: body.sell },
      conversionRate: {
        amount: new Big(1).div(this.eurPerBtc).toFixed(10),
        sourceCurrency: body.sell,
        targetCurrency: body.buy,
      },
      state: 'NEW',
    };
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}
