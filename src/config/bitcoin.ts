import { flag, matching, oneOf, optional, section, variable, whole } from './variable.js';

/** The networks a watch key and ESPLORA_URL may be of (CHAIN_NETWORK). */
export const NETWORKS = ['mainnet', 'testnet', 'signet', 'regtest'] as const;
export type Network = (typeof NETWORKS)[number];

/** The feeds that may be turned off, and the bitcoin service's settings. */
export const BITCOIN = {
  ...section('Feeds', {
    SPOT_FEED_ENABLED: flag({ default: 'true', meaning: 'live BTC price connection (Kraken WebSocket v2)' }),
    OHLC_FEED_ENABLED: flag({ default: 'true', meaning: 'candle pollers (Kraken REST)' }),
    QUOTE_FEED_ENABLED: flag({ default: 'true', meaning: 'broker quote poller and quote calls (Strike)' }),
    RATES_FEED_ENABLED: flag({ default: 'true', meaning: 'currency-rate poller (Frankfurter, ECB rates)' }),
    PRICE_FEED_ENABLED: flag({ default: 'true', meaning: 'day-ahead price fetcher (Energi Data Service)' }),
    CO2_FEED_ENABLED: flag({
      default: 'true',
      meaning:
        "the grid's CO₂ intensity, realized and forecast, fetched every 15 minutes (Energi Data Service, on one process)",
    }),
    METERING_SYNC_ENABLED: flag({
      default: 'true',
      meaning:
        'the hourly check that syncs every past metering day not yet stored, up to the day before yesterday, at most 31 a run (on one process, with a metering token)',
    }),
  }),
  ...section('Bitcoin', {
    QUOTE_TOTAL_EUR: matching(
      { default: '55', meaning: 'the EUR total a quote is made for' },
      '^(?!0+(\\.0+)?$)\\d{1,7}(\\.\\d{1,2})?$',
      'a positive amount with at most 2 decimals',
    ),
    STREAM_MAX_CLIENTS: whole(
      {
        default: '1000',
        meaning:
          'price and quote streams (WebSocket and SSE) open at once; past it a new one is refused with 503 and `Retry-After`',
      },
      1,
      1_000_000,
    ),
    STREAM_MAX_PER_ADDRESS: whole(
      {
        default: '20',
        meaning:
          'the same per client address (the address `TRUST_PROXY` makes out); past it 429 and `Retry-After`',
      },
      1,
      1_000_000,
    ),
    QUOTE_RETENTION_DAYS: whole(
      {
        default: '7',
        meaning: 'quotes kept whole this many days; older ones are folded into hourly rows, kept for good',
      },
      1,
      36_500,
    ),
    MINUTE_CANDLE_RETENTION_DAYS: whole(
      { default: '30', meaning: '1-minute candles kept this many days (hourly and daily ones for good)' },
      1,
      36_500,
    ),
    IDEMPOTENCY_KEY_HOURS: whole(
      { default: '24', meaning: 'idempotency keys (and the answers they replay) kept this many hours' },
      1,
      876_000,
    ),
    STRIKE_API_KEY: optional({
      default: '',
      meaning: 'broker API key; without it the quote feed logs once that it is off',
      secret: true,
    }),
    ESPLORA_URL: variable(
      {
        default: '',
        meaning:
          "base of the household's own Esplora HTTP API for the watch-only wallets (mempool's `/api` on Umbrel or Start9, electrs' HTTP, esplora), e.g. `http://umbrel.local:3006/api`; empty is off and no one is asked. An Esplora learns every address it is asked about: use your own (see [the chain](docs/chain.md))",
        secret: true,
      },
      (t) => t.Union([t.String(), t.Null()]),
      (v, read) => {
        if (v === '') return null;
        let u: URL;
        try {
          u = new URL(v);
        } catch {
          return read.refuse(
            'not a valid URL (expected http://host:port/path, e.g. http://umbrel.local:3006/api)',
            null,
          );
        }
        if (u.protocol !== 'http:' && u.protocol !== 'https:')
          read.refuse(`expected an http or https URL, got "${u.protocol}"`, 0);
        return v.replace(/\/+$/, '');
      },
    ),
    CHAIN_GAP_LIMIT: whole(
      {
        default: '20',
        meaning:
          "a watched wallet's receive and change chains are scanned until this many unused addresses in a row",
      },
      1,
      1000,
    ),
    TAX_SPOUSES: variable(
      {
        default: '',
        meaning:
          "owners (the wallets' `owner`) who are spouses living together, as pairs `Anna=Bo`, comma-separated: a move between them keeps its cost and date (KSL § 26 B); any other move between two owners is a gift at its value (see [the ledger](docs/ledger.md#tax-the-years-figures-for-skat))",
      },
      (t) => t.Array(t.Tuple([t.String(), t.String()])),
      (v, read) => {
        const pairs =
          v.trim() === '' ? [] : v.split(',').map((p) => p.split('=').map((o) => o.trim().normalize('NFC')));
        for (const p of pairs)
          if (p.length !== 2 || p.some((o) => o === '' || o.length > 40) || p[0] === p[1])
            return read.refuse(`expected pairs of two different owners, "Anna=Bo,Carl=Dina", got "${v}"`, []);
        const owners = pairs.flat();
        const twice = owners.find((o, i) => owners.indexOf(o) !== i);
        if (twice !== undefined) return read.refuse(`"${twice}" is named in two pairs: one spouse each`, []);
        return pairs as [string, string][];
      },
    ),
    CHAIN_NETWORK: oneOf(
      {
        default: 'mainnet',
        meaning:
          'the network of the watch keys and of `ESPLORA_URL`: `mainnet`, `testnet`, `signet` or `regtest` (tpub, upub and vpub keys on the last three)',
      },
      NETWORKS,
      `one of ${NETWORKS.join(', ')}`,
      (v) => v.toLowerCase(),
    ),
  }),
};
