import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KRAKEN_HEADER, dailyHistory, krakenLines } from '../../../test/fakes/kraken-ledger.js';
import { fakeRates } from '../../../test/fakes/rates.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { ledgerAndImports } from '../../../test/support/services.js';
import { importLedgerCommand } from './command.js';
import { importServiceOf } from './index.js';

let t: TestApp;
let dir: string;
const rates = fakeRates();

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'satwatt-import-'));
  t = await startTestApp({ services: ledgerAndImports(rates) });
});
afterAll(() => t.close());

async function file(name: string, lines: string[]): Promise<string> {
  const f = path.join(dir, name);
  await writeFile(f, `${lines.join('\n')}\n`);
  return f;
}

function command() {
  const out: string[] = [];
  const err: string[] = [];
  const cmd = importLedgerCommand({ out: (l) => out.push(l), err: (l) => err.push(l), rates });
  return { run: (args: string[]) => cmd.run(args, t.ctx), out, err };
}

describe('npm run cli -- import-ledger', () => {
  const steps = dailyHistory(3, Date.parse('2024-01-01T09:00:00Z'));

  it('imports a Kraken export; a dry run first says what it would create and writes nothing', async () => {
    const f = await file('kraken.csv', [KRAKEN_HEADER, ...krakenLines(steps, 'cli-')]);
    const dry = command();
    expect(await dry.run([f, '--source', 'kraken', '--exchange', '1', '--to-wallet', '4', '--dry-run'])).toBe(
      0,
    );
    expect(dry.out[0]).toBe(
      `${f}: dry run: would create 6 events and 3 lots; 0 already stored; 3 lines skipped`,
    );
    expect(dry.out[1]).toBe(`${f}:6: skipped: type staking is not imported`);
    expect((await t.call('GET', '/api/wallets/4')).json().balance).toBe(0);
    const real = command();
    expect(await real.run([f, '--source', 'kraken', '--exchange', '1', '--to-wallet', '4'])).toBe(0);
    expect(real.out[0]).toBe(`${f}: created 6 events and 3 lots; 0 already stored; 3 lines skipped`);
    expect((await t.call('GET', '/api/wallets/4')).json().balance).toBe(98_000 + 99_000 + 100_000);
    const again = command();
    expect(await again.run([f, '--source', 'kraken', '--exchange', '1', '--to-wallet', '4'])).toBe(0);
    expect(again.out[0]).toBe(`${f}: created 0 events and 0 lots; 9 already stored; 3 lines skipped`);
  });

  it('writes nothing from a file with problems and names the file and line of each', async () => {
    const f = await file('bad.csv', [
      KRAKEN_HEADER,
      ...krakenLines(steps, 'bad-').map((l, i) => (i === 2 ? l.replace('2024-01-01', '2024-01-32') : l)),
    ]);
    const c = command();
    expect(await c.run([f, '--source', 'kraken', '--exchange', '2', '--to-wallet', '5'])).toBe(1);
    expect(c.err).toEqual([
      `${f}:4: time: "2024-01-32 10:00:00" is not a UTC time YYYY-MM-DD HH:MM:SS`,
      `${f}: nothing imported (1 problem)`,
    ]);
    expect((await t.call('GET', '/api/wallets/5')).json().balance).toBe(0);
  });

  it('writes nothing from a file whose bytes are not UTF-8, naming the byte and its line', async () => {
    const f = path.join(dir, 'latin1.csv');
    const lines = [KRAKEN_HEADER, ...krakenLines(steps, 'latin-')];
    await writeFile(
      f,
      Buffer.concat([
        Buffer.from(`${lines.slice(0, 3).join('\n')}\n`),
        Buffer.from([0xe9]),
        Buffer.from(`${lines.slice(3).join('\n')}\n`),
      ]),
    );
    const c = command();
    expect(await c.run([f, '--source', 'kraken', '--exchange', '2', '--to-wallet', '5'])).toBe(1);
    expect(c.err).toHaveLength(1);
    expect(c.err[0]).toMatch(
      new RegExp(
        `^${f}: must be UTF-8: byte 0xE9 at offset \\d+ \\(line 4\\) begins no UTF-8 sequence; nothing imported$`,
      ),
    );
    expect((await t.call('GET', '/api/wallets/5')).json().balance).toBe(0);
  });

  it('refuses wrong arguments with the usage, a folder, and a missing exchange', async () => {
    for (const args of [
      [],
      ['a.csv', '--source', 'binance'],
      ['a.csv', '--source', 'csv', '--exchange', '1.5'],
      ['a.csv', 'b.csv', '--source', 'csv'],
    ]) {
      const c = command();
      expect(await c.run(args), args.join(' ')).toBe(2);
      expect(c.err[0]).toMatch(/^import-ledger: /);
    }
    const folder = command();
    expect(await folder.run([dir, '--source', 'csv'])).toBe(2);
    expect(folder.err).toEqual([`import-ledger: ${dir} is not a file`]);
    const f = await file('empty.csv', [KRAKEN_HEADER]);
    const missing = command();
    expect(await missing.run([f, '--source', 'kraken', '--to-wallet', '4'])).toBe(2);
    expect(missing.err).toEqual([
      'import-ledger: --exchange: required: a Kraken export names no wallets of the ledger',
    ]);
  });

  it('commits nothing when its caller runs out of time', async () => {
    const text = [KRAKEN_HEADER, ...krakenLines(steps, 'late-')].join('\n');
    const service = importServiceOf(t.ctx, rates);
    const options = { source: 'kraken' as const, exchange: 2, to_wallet: 7 };
    await expect(
      service.importLedger(text, options, { signal: AbortSignal.abort(new Error('too late')) }),
    ).rejects.toThrow('too late');
    // Time runs out while the events are being written: the transaction is rolled back.
    const deadline = new AbortController();
    const onProgress = (phase: string) => phase === 'write' && deadline.abort(new Error('out of time'));
    await expect(
      service.importLedger(text, options, { signal: deadline.signal, onProgress }),
    ).rejects.toThrow('out of time');
    expect((await t.call('GET', '/api/wallets/7')).json().balance).toBe(0);
    expect((await service.importLedger(text, options)).created).toBe(9);
  });

  it('reports its progress through a large file: the bytes parsed, then the events written', async () => {
    const many = dailyHistory(520, Date.parse('2020-01-01T09:00:00Z'));
    const text = [KRAKEN_HEADER, ...krakenLines(many, 'big-')].join('\n');
    expect(text.length).toBeGreaterThan(256 * 1024);
    const seen: [string, number, number][] = [];
    const answer = await importServiceOf(t.ctx, rates).importLedger(
      text,
      { source: 'kraken', exchange: 3, to_wallet: 6 },
      { onProgress: (phase, done, total) => seen.push([phase, done, total]) },
    );
    expect(answer.created).toBe(1560);
    const read = seen.filter(([p]) => p === 'read');
    expect(read.length).toBeGreaterThan(2);
    expect(read.every(([, done], i) => i === 0 || done >= read[i - 1]![1])).toBe(true);
    expect(read.at(-1)![1]).toBe(text.length);
    const fetching = seen.filter(([p]) => p === 'rates');
    expect(fetching[0]).toEqual(['rates', 0, fetching.at(-1)![2]]);
    expect(fetching.at(-1)![1]).toBe(fetching.at(-1)![2]);
    expect(seen.map(([p]) => p).filter((p, i, all) => p !== all[i - 1])).toEqual(['read', 'rates', 'write']);
    expect(seen.filter(([p]) => p === 'write')).toEqual([
      ['write', 0, 1040],
      ['write', 1040, 1040],
    ]);
  });
});
