/**
 * Every PostgreSQL advisory lock key of the project, in one place so that no two features share
 * one: a shared key makes one feature's holder keep the other's away for good. Arbitrary
 * constants; a test keeps them distinct.
 */
export const LOCK_KEYS = {
  /** Serializes migrations across processes. */
  migrations: 4_711_0001,
  /** Its holder runs the btc pollers (spot, quote, candles, rates, retention). */
  btcPollers: 4_711_0020,
  /** Its holder publishes to the MQTT broker. */
  mqttPublisher: 4_711_0030,
  /** Its holder runs the daily metering sync, the charges refresh and the CO₂ feed, and writes the Home Assistant statistics. */
  meteringSync: 4_711_0040,
  /** Held by a transaction that sets a watch key: two wallets never take the same key at once. */
  chainWatch: 4_711_0170,
  /** Held by a ledger import's transaction: imports see each other's references and lots whole. */
  ledgerImports: 4_711_0130,
} as const;
