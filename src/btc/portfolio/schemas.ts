import { Type } from 'typebox';
import { DAYS, Day, Nullable } from '../../http/types.js';

const Cents = (description: string) =>
  Type.String({
    pattern: '^-?[0-9]+\\.[0-9]{2}$',
    description: `${description}; a decimal string to the cent`,
  });

const Fiat = (description: string) =>
  Type.Object({ eur: Cents(description), dkk: Cents(description), usd: Cents(description) });

const FiatOrNull = (description: string) => {
  const c = Nullable(Cents(`${description}; null while that side of the price is unknown`));
  return Nullable(
    Type.Object({ eur: c, dkk: c, usd: c }, { description: `${description}; null without a price` }),
  );
};

const Sats = (description: string) => Type.Integer({ minimum: 0, description });

export const PortfolioQuery = Type.Object(
  {
    at: Type.Optional(
      Day(
        DAYS.ledger,
        'the portfolio after the events of that day (at most today, Danish date), at its daily close',
      ),
    ),
  },
  { additionalProperties: false },
);

const PriceSide = (pair: string) =>
  Nullable(Cents(`${pair} per whole BTC, rounded for display (values use the exact price)`));

export const Portfolio = Type.Object({
  as_of: Type.String({
    format: 'date-time',
    description:
      'the instant of the price used: the latest spot price (now, without one); with at, the close of that UTC day',
  }),
  price: Nullable(
    Type.Object({
      btc_eur: PriceSide('EUR'),
      btc_usd: PriceSide('USD'),
      btc_dkk: PriceSide('DKK (BTC/EUR at the EUR/DKK rate); null while no rate is known'),
    }),
    {
      description:
        'the latest spot price, or with at the daily close of that UTC day from the stored candles; null when there is none',
    },
  ),
  sats: Sats('the sum of the wallet balances: bought_sats − fee_sats'),
  bought_sats: Sats('the sum of the buys’ sats (what reached the wallet bought into)'),
  fee_sats: Sats('the sum of the transfer fees (wallet_to_wallet fee_sats); a buy’s fee_sats is not counted'),
  cost: Fiat('the buys’ amounts, each converted at the rates of its date, summed exactly and rounded once'),
  average_price: Nullable(Fiat('cost per whole BTC bought: cost / (bought_sats / 1e8)'), {
    description: 'null before the first buy',
  }),
  value: FiatOrNull('sats at the price'),
  unrealized_pnl: FiatOrNull('value − cost, exactly as answered'),
  wallets: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      wallet_type: Type.Union([Type.Literal('exchange'), Type.Literal('wallet')]),
      sats: Sats('the wallet’s balance'),
      value: FiatOrNull('the wallet’s sats at the price'),
    }),
  ),
});
