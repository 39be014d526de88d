/**
 * Kraken ledger exports written from the documented columns (History → Export → Ledgers,
 * classic layout), for tests and the benchmark: deposits, buys (two lines sharing a refid),
 * withdrawals of bitcoin, and staking lines an import leaves out.
 */
export const KRAKEN_HEADER =
  '"txid","refid","time","type","subtype","aclass","asset","amount","fee","balance"';

export type KrakenStep =
  | { kind: 'deposit'; at: number; currency: 'ZEUR' | 'ZUSD'; amount: string }
  | { kind: 'buy'; at: number; currency: 'ZEUR' | 'ZUSD' | 'ZDKK'; spend: string; fee: string; sats: number }
  | { kind: 'withdrawal'; at: number; sats: number; fee_sats: number }
  | { kind: 'staking'; at: number; sats: number };

const time = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const btc = (sats: number) => (sats / 1e8).toFixed(10);

/**
 * The lines of the steps (without the header); refids and txids carry `prefix` and the step's
 * index in its history (`first` is the index of the first step given).
 */
export function krakenLines(steps: readonly KrakenStep[], prefix: string, first = 0): string[] {
  return steps.flatMap((s, n) => {
    const i = first + n;
    const ref = `${prefix}R${i}`;
    const line = (n: number, type: string, asset: string, amount: string, fee: string) =>
      `"${prefix}L${i}-${n}","${ref}","${time(s.at)}","${type}","","currency","${asset}",${amount},${fee},0`;
    switch (s.kind) {
      case 'deposit':
        return [line(0, 'deposit', s.currency, s.amount, '0.0000')];
      case 'buy':
        return [
          line(0, 'trade', s.currency, `-${s.spend}`, s.fee),
          line(1, 'trade', 'XXBT', btc(s.sats), '0.0000000000'),
        ];
      case 'withdrawal':
        return [line(0, 'withdrawal', 'XXBT', `-${btc(s.sats)}`, btc(s.fee_sats))];
      case 'staking':
        return [line(0, 'staking', 'XBT.M', btc(s.sats), '0.0000000000')];
    }
  });
}

/**
 * A household's routine, `days` times a day apart from `start`: a deposit, a buy with it in
 * EUR, USD or DKK, a withdrawal of what was bought (less a fee), and a staking reward: four
 * steps, five lines a day.
 */
export function dailyHistory(days: number, start = Date.parse('2019-01-01T09:00:00Z')): KrakenStep[] {
  const steps: KrakenStep[] = [];
  const hour = 3_600_000;
  for (let d = 0; d < days; d++) {
    const at = start + d * 24 * hour;
    const currency = (['ZEUR', 'ZUSD', 'ZDKK'] as const)[d % 3]!;
    const sats = 100_000 + (d % 97) * 1_000;
    steps.push(
      { kind: 'deposit', at, currency: currency === 'ZDKK' ? 'ZEUR' : currency, amount: '250.0000' },
      { kind: 'buy', at: at + hour, currency, spend: `${200 + (d % 50)}.5000`, fee: '0.5200', sats },
      { kind: 'withdrawal', at: at + 2 * hour, sats: sats - 2_000, fee_sats: 2_000 },
      { kind: 'staking', at: at + 3 * hour, sats: 10 },
    );
  }
  return steps;
}
