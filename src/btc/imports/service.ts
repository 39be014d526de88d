import type { Db } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { danishDate } from '../../shared/danish-time.js';
import { createBatch, lockForBatch, movedByAll } from '../ledger/service.js';
import { walletsOf } from '../ledger/events.js';
import { eventJson } from '../ledger/repository.js';
import * as ledgerRepo from '../ledger/repository.js';
import type { DailyRates, RatesService } from '../rates/service.js';
import { readGenericCsv } from './csv-source.js';
import { readKraken } from './kraken.js';
import type { ImportWallets, Movement, ReadFile, Source } from './movements.js';
import { daysNeedingRates, plan, type Plan, type PlannedLot } from './plan.js';
import { lineReason } from './reasons.js';
import { readCsv, type LineProblem } from './records.js';
import * as repo from './repository.js';
import type { ImportAnswer, ImportedEvent, ImportedLot } from './schemas.js';

export interface ImportOptions extends ImportWallets {
  source: Source;
  dry_run?: boolean;
}

export interface ImportHooks {
  /** The caller's deadline: an import that runs out of time before its commit writes nothing. */
  signal?: AbortSignal;
  /** How far the import got: the bytes of the file parsed, the days' rates fetched, the events written. */
  onProgress?: (phase: 'read' | 'rates' | 'write', done: number, total: number) => void;
}

/** The import was refused whole: every problem found, each with its line. Nothing was written. */
export class ImportRefused extends Error {
  constructor(readonly problems: LineProblem[]) {
    super(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the file`);
  }
}

/** An option of the import (the exchange, the wallet) is missing, or names no wallet of the kind it needs. */
export class ImportOptionRefused extends Error {
  constructor(
    readonly option: 'exchange' | 'to_wallet',
    readonly reason: string,
    readonly missing = false,
  ) {
    super(`${option}: ${reason}`);
  }
}

/** Thrown inside the transaction to roll it back, carrying what it would have written. */
class RolledBack extends Error {
  constructor(readonly answer: ImportAnswer) {
    super('dry run');
  }
}

export interface ImportDeps {
  db: Db;
  rates: RatesService;
  clock: Clock;
  shutdown: AbortSignal;
}

/** Exchange exports into the ledger, all or nothing, through the ledger's own rules (decide) and write path. */
export class ImportService {
  constructor(private readonly deps: ImportDeps) {}

  async importLedger(text: string, options: ImportOptions, hooks: ImportHooks = {}): Promise<ImportAnswer> {
    const { db, shutdown } = this.deps;
    const signal = hooks.signal ? AbortSignal.any([shutdown, hooks.signal]) : shutdown;
    const parsed = await readCsv(text, (bytes) => hooks.onProgress?.('read', bytes, text.length));
    if (!parsed.ok) throw new ImportRefused([parsed.problem]);
    const wallets = await ledgerRepo.listWallets(db);
    checkOptions(options, wallets);
    const now = this.deps.clock.now();
    const read: ReadFile =
      options.source === 'kraken'
        ? readKraken(parsed.file, { exchange: options.exchange!, to_wallet: options.to_wallet! }, now)
        : readGenericCsv(parsed.file, options, new Map(wallets.map((w) => [w.name, w.id])));
    if (read.problems.length > 0) throw new ImportRefused(read.problems);
    const today = danishDate(now);
    const fetched = await this.fetchRates(
      daysNeedingRates(read.movements).filter((d) => d <= today),
      signal,
      hooks,
    );
    signal.throwIfAborted();
    try {
      return await db.transaction().execute(async (trx) => {
        await repo.lockImports(trx);
        await ledgerRepo.saveRates(trx, fetched);
        const answer = await this.apply(trx, read, options, today, hooks);
        if (options.dry_run) throw new RolledBack(answer);
        // A caller out of time gets nothing committed, so its retry finds nothing half done.
        signal.throwIfAborted();
        return answer;
      });
    } catch (e) {
      if (e instanceof RolledBack) return e.answer;
      throw e;
    }
  }

  private async apply(
    trx: Db,
    read: ReadFile,
    options: ImportOptions,
    today: string,
    hooks: ImportHooks,
  ): Promise<ImportAnswer> {
    const { source, exchange } = options;
    const named = new Set<number>();
    for (const m of read.movements) if (m.kind === 'event') walletsOf(m.event).forEach((w) => named.add(w));
    if (exchange !== undefined) named.add(exchange);
    if (options.to_wallet !== undefined) named.add(options.to_wallet);
    const moved = movedByAll(read.movements.flatMap((m) => (m.kind === 'event' ? [m.event] : [])));
    if (options.to_wallet !== undefined) moved.add(options.to_wallet);
    const states = await lockForBatch(trx, named, moved);
    const refs = (kind: 'lot' | 'other') =>
      read.movements.filter((m) => (m.kind === 'lot') === (kind === 'lot')).map((m) => m.reference);
    const openLots = exchange === undefined ? [] : await repo.openLots(trx, exchange);
    const lotDays = [
      ...openLots.filter((l) => l.currency !== 'EUR').map((l) => l.day),
      ...read.movements.flatMap((m) => (m.kind === 'lot' && m.currency !== 'EUR' ? [m.day] : [])),
    ];
    const p = plan({
      movements: read.movements,
      exchange,
      to_wallet: options.to_wallet,
      knownEvents: new Set(await repo.knownEventReferences(trx, source, refs('other'))),
      knownLots: new Set(await repo.knownLotReferences(trx, source, refs('lot'))),
      openLots,
      rates: await repo.storedRates(trx, [...new Set(lotDays)]),
    });
    if (p.problems.length > 0) throw new ImportRefused(p.problems);
    hooks.onProgress?.('write', 0, p.events.length);
    const batch = await createBatch(
      trx,
      states,
      p.events.map((e) => e.event),
      today,
    );
    if (!batch.ok)
      throw new ImportRefused(
        batch.refused.map(({ index, violation }) => ({
          line: p.events[index]!.line,
          reason: lineReason(violation),
        })),
      );
    const lotIds = await repo.insertLots(
      trx,
      p.lots.map((l) => lotRow(l, source, exchange!)),
    );
    await repo.insertReferences(
      trx,
      batch.rows.map((row, i) => ({ event_id: row.id, source, reference: p.events[i]!.reference })),
    );
    await repo.insertAllocations(
      trx,
      batch.rows.flatMap((row, i) =>
        p.events[i]!.takes.map(({ lot, sats }) => ({
          event_id: row.id,
          lot_id: 'stored' in lot ? lot.stored : lotIds[lot.planned]!,
          sats,
        })),
      ),
    );
    hooks.onProgress?.('write', p.events.length, p.events.length);
    return answerOf(source, options.dry_run === true, p, batch.rows.map(eventJson), read.skipped);
  }

  /**
   * Rates of days the ledger has not stored yet, fetched before any transaction opens: the
   * provider may be slow. The rates service asks for them in a few time-series calls (a year
   * each), not a call a day, which the provider's call budget would space out. What was fetched
   * stays stored by the rates service.
   */
  private async fetchRates(days: string[], signal: AbortSignal, hooks: ImportHooks): Promise<DailyRates[]> {
    const stored = await repo.storedRates(this.deps.db, days);
    const missing = days.filter((d) => !stored.has(d));
    if (missing.length === 0) return [];
    hooks.onProgress?.('rates', 0, missing.length);
    const fetched = await this.deps.rates.forDates(missing, signal);
    hooks.onProgress?.('rates', missing.length, missing.length);
    return fetched;
  }
}

function checkOptions(
  options: ImportOptions,
  wallets: { id: number; name: string; wallet_type: string }[],
): void {
  const byId = new Map(wallets.map((w) => [w.id, w]));
  if (options.source === 'kraken')
    for (const option of ['exchange', 'to_wallet'] as const)
      if (options[option] === undefined)
        throw new ImportOptionRefused(
          option,
          'required: a Kraken export names no wallets of the ledger',
          true,
        );
  if (options.exchange !== undefined) {
    const w = byId.get(options.exchange);
    if (!w) throw new ImportOptionRefused('exchange', `there is no wallet ${options.exchange}`);
    if (w.wallet_type !== 'exchange')
      throw new ImportOptionRefused('exchange', `wallet ${w.id} (${w.name}) is not an exchange`);
  }
  if (options.to_wallet !== undefined && !byId.has(options.to_wallet))
    throw new ImportOptionRefused('to_wallet', `there is no wallet ${options.to_wallet}`);
}

function lotRow(l: PlannedLot, source: Source, exchange: number) {
  return {
    exchange,
    source,
    reference: l.reference,
    acquired_at: new Date(l.at),
    occurred_at: l.day,
    sats: l.sats,
    amount: l.amount,
    currency: l.currency,
  };
}

function answerOf(
  source: Source,
  dryRun: boolean,
  p: Plan,
  rows: ReturnType<typeof eventJson>[],
  skipped: LineProblem[],
): ImportAnswer {
  const events: ImportedEvent[] = rows.map((row, i) => {
    const { id, ...rest } = row;
    return { ...(dryRun ? {} : { id }), ...rest, reference: p.events[i]!.reference, line: p.events[i]!.line };
  });
  const lots: ImportedLot[] = p.lots.map((l) => ({
    reference: l.reference,
    line: l.line,
    acquired_at: new Date(l.at).toISOString(),
    occurred_at: l.day,
    sats: l.sats,
    amount: l.amount,
    currency: l.currency,
  }));
  return {
    source,
    dry_run: dryRun,
    created: events.length + lots.length,
    duplicates: p.duplicates,
    skipped,
    events,
    lots,
  };
}

export type { Movement };
