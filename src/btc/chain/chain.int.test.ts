import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEsplora, OUTSIDE } from '../../../test/fakes/esplora.js';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import {
  LEDGER,
  TOKEN,
  TR_DESCRIPTOR,
  TREZOR,
  ZPUB,
  auth,
  chainServices,
} from '../../../test/support/chain.js';

/**
 * Watch keys on wallets (PATCH /api/wallets/:id), a scan through the fake Esplora, and the chain
 * against the ledger: the sums, the matches, the suggestions, and where they show.
 */
const ZPRV =
  'zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE';

/** ZPUB with the version bytes of an xpub: the same key, as a descriptor takes it. */
const XPUB_OF_ZPUB =
  'xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V';

let esplora: FakeEsplora;
let app: TestApp;
beforeAll(async () => {
  esplora = await FakeEsplora.start();
  app = await startTestApp({
    env: { API_TOKEN: TOKEN, ESPLORA_URL: esplora.url, CHAIN_GAP_LIMIT: '5' },
    services: chainServices(),
  });
});
afterAll(async () => {
  await app?.close();
  await esplora?.close();
});

const patch = (id: number, body: unknown) => app.call('PATCH', `/api/wallets/${id}`, body, auth);
const wallets = async () =>
  (await app.call('GET', '/api/wallets', undefined, auth)).json<Record<string, unknown>[]>();
const scan = (id: number) => app.call('POST', `/api/wallets/${id}/chain/scan`, undefined, auth);
const chain = async (id: number) => {
  const r = await app.call('GET', `/api/wallets/${id}/chain`, undefined, auth);
  expect(r.statusCode, r.body).toBe(200);
  return r.json();
};
const event = async (body: Record<string, unknown>) => {
  const r = await app.call('POST', '/api/events', body, auth);
  expect(r.statusCode, r.body).toBe(201);
  return r.json<{ id: number }>().id;
};

describe('a watch key', () => {
  it('is answered as its kind, first address and fingerprint, never as the key', async () => {
    const r = await patch(4, { watch: ZPUB });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toEqual({
      id: 4,
      name: 'Trezor',
      wallet_type: 'wallet',
      balance: 0,
      owner: 'household',
      watch: {
        kind: 'zpub',
        first_address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
        fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
      },
      chain_sats: null,
      difference_sats: null,
    });
    const all = JSON.stringify([
      await wallets(),
      (await app.call('GET', '/api/wallets/4', undefined, auth)).json(),
      await chain(4),
    ]);
    expect(all).not.toContain(ZPUB.slice(4, 60));
    // an unwatched wallet keeps its fields as they were
    expect((await wallets()).find((w) => w.id === 1)).toEqual({
      id: 1,
      name: 'Kraken',
      wallet_type: 'exchange',
      balance: 0,
      owner: 'household',
    });
  });

  it('a private key is a 400 naming the field and why, and writes nothing (the name neither)', async () => {
    const r = await patch(4, { name: 'Renamed', watch: ZPRV });
    expect(r.statusCode).toBe(400);
    expect(r.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(r.json().detail).toMatch(/^body\.watch: this is a private key \(zprv\)/);
    expect(r.body).not.toContain(ZPRV.slice(4, 40));
    const w = (await wallets()).find((x) => x.id === 4)!;
    expect([w.name, (w.watch as { kind: string }).kind]).toEqual(['Trezor', 'zpub']);
  });

  it('a testnet key on mainnet, a bad checksum and a wrong shape are 400s', async () => {
    const upub =
      'upub5EFU65HtV5TeiSHmZZm7FUffBGy8UKeqp7vw43jYbvZPpoVsgU93oac7Wk3u6moKegAEWtGNF8DehrnHtv21XXEMYRUocHqguyjknFHYfgY';
    expect((await patch(6, { watch: upub })).json().detail).toMatch(
      /test-network key \(upub\) on the mainnet setting/,
    );
    expect((await patch(6, { watch: `${TR_DESCRIPTOR}#qqqqqqqq` })).json().detail).toMatch(
      /checksum does not match/,
    );
    expect((await patch(6, { watch: 42 })).statusCode).toBe(400);
    expect((await wallets()).find((w) => w.id === 6)!.watch).toBeUndefined();
  });

  it('only a wallet of type wallet is watched; a watched one does not become an exchange', async () => {
    expect((await patch(1, { watch: TR_DESCRIPTOR })).statusCode).toBe(409);
    const r = await patch(4, { wallet_type: 'exchange' });
    expect(r.statusCode).toBe(409);
    expect(r.json().detail).toMatch(/has a watch key; remove it/);
  });

  it('the same key on a second wallet is refused: its sats would count twice', async () => {
    const r = await patch(7, { watch: ZPUB });
    expect(r.statusCode).toBe(409);
    expect(r.json().detail).toMatch(/wallet 4 watches the same key/);
  });

  it('the same key given to two wallets at once is taken by one of them only', async () => {
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all([6, 7].map((w) => patch(w, { watch: TR_DESCRIPTOR })));
      expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      for (const w of [6, 7]) expect((await patch(w, { watch: null })).statusCode).toBe(200);
    }
  });

  it('the same key written another way on a second wallet is refused too: as a descriptor, or as its addresses', async () => {
    for (const watch of [
      `wpkh(${XPUB_OF_ZPUB}/<0;1>/*)`,
      `wpkh(${XPUB_OF_ZPUB})`,
      [TREZOR.address(0, 0), TREZOR.address(0, 1)],
    ]) {
      const r = await patch(7, { watch });
      expect(r.statusCode, r.body).toBe(409);
      expect(r.json().detail).toMatch(/wallet 4 watches the same key/);
    }
  });

  it('null removes it, with what its scans found; the wallet goes back to its plain fields', async () => {
    expect((await patch(7, { watch: [LEDGER.address(0, 3)] })).statusCode).toBe(200);
    const r = await patch(7, { watch: null });
    expect(r.json()).toEqual({
      id: 7,
      name: 'Paper wallet',
      wallet_type: 'wallet',
      balance: 0,
      owner: 'household',
    });
    expect((await app.call('GET', '/api/wallets/7/chain', undefined, auth)).statusCode).toBe(409);
  });
});

describe('the chain against the ledger', () => {
  // Trezor: 100,000 sats bought and sent to it on 2024-01-01, 60,000 spent on 2024-01-02 (fee 1,000, change 39,000)
  let buyTx: string;
  let spendTx: string;
  let buyEvent: number;
  beforeAll(async () => {
    buyTx = esplora.pay({ to: [{ address: TREZOR.address(0, 0), value: 100_000 }], block: 823_010 });
    spendTx = esplora.pay({
      from: [{ address: TREZOR.address(0, 0), value: 100_000 }],
      to: [
        { address: OUTSIDE, value: 60_000 },
        { address: TREZOR.address(1, 0), value: 39_000 },
      ],
      fee: 1_000,
      block: 823_150,
    });
    buyEvent = await event({
      type: 'exchange_to_wallet',
      occurred_at: '2024-01-01',
      from_wallet: 1,
      to_wallet: 4,
      sats: 100_000,
      fee_sats: 0,
      amount: '900.00',
      currency: 'EUR',
    });
  });

  it('before a scan: the ledger’s side, the chain’s null', async () => {
    expect(await chain(4)).toMatchObject({
      scanned_at: null,
      chain_sats: null,
      ledger_sats: 100_000,
      difference_sats: null,
      transactions: [],
    });
  });

  it('a scan: the sums, the buy matched to its event, the spend suggested with its fee', async () => {
    const r = await scan(4);
    expect(r.statusCode, r.body).toBe(200);
    const c = r.json();
    expect(c).toMatchObject({
      wallet: 4,
      scanned_at: '2026-07-03T10:00:00.000Z',
      chain_sats: 39_000,
      mempool_sats: 0,
      ledger_sats: 100_000,
      difference_sats: -61_000,
      gap_limit: 5,
      addresses_used: 2,
      unmatched: [spendTx],
      suggestions: [
        { type: 'spend', occurred_at: '2024-01-02', from_wallet: 4, sats: 60_000, fee_sats: 1_000 },
      ],
    });
    expect(c.transactions).toEqual([
      {
        txid: spendTx,
        time: '2024-01-02T01:00:00.000Z',
        confirmed: true,
        net_sats: -61_000,
        fee_sats: 1_000,
        event_id: null,
        event_ids: [],
      },
      {
        txid: buyTx,
        time: '2024-01-01T01:40:00.000Z',
        confirmed: true,
        net_sats: 100_000,
        fee_sats: 0,
        event_id: buyEvent,
        event_ids: [buyEvent],
      },
    ]);
    expect((await wallets()).find((w) => w.id === 4)).toMatchObject({
      balance: 100_000,
      chain_sats: 39_000,
      difference_sats: -61_000,
    });
    const health = (await app.call('GET', '/health', undefined, auth)).json();
    expect(health.feeds.chain).toMatchObject({
      enabled: true,
      ok: true,
      last_success_at: '2026-07-03T10:00:00.000Z',
    });
  });

  it('a move between two watched wallets is suggested as one on both sides; recorded, it matches both', async () => {
    expect((await patch(5, { watch: TR_DESCRIPTOR })).statusCode).toBe(200);
    // Trezor sends 20,000 of its change to the Ledger, fee 400, the rest back to its own change
    const move = esplora.pay({
      from: [{ address: TREZOR.address(1, 0), value: 39_000 }],
      to: [
        { address: LEDGER.address(0, 0), value: 20_000 },
        { address: TREZOR.address(1, 1), value: 18_600 },
      ],
      fee: 400,
      block: 823_300,
    });
    expect((await scan(4)).statusCode).toBe(200);
    expect((await scan(5)).statusCode).toBe(200);
    const body = {
      type: 'wallet_to_wallet',
      occurred_at: '2024-01-03',
      from_wallet: 4,
      to_wallet: 5,
      sats: 20_000,
      fee_sats: 400,
    };
    expect((await chain(4)).suggestions).toContainEqual(body);
    expect((await chain(5)).suggestions).toEqual([body]);
    const id = await event(body);
    const [trezor, ledger] = [await chain(4), await chain(5)];
    expect(trezor.transactions.find((t: { txid: string }) => t.txid === move).event_id).toBe(id);
    expect(ledger).toMatchObject({
      unmatched: [],
      difference_sats: 0,
      ledger_sats: 20_000,
      chain_sats: 20_000,
    });
  });

  it('a transaction from outside paying both watched wallets is a receive on each side', async () => {
    const both = esplora.pay({
      to: [
        { address: TREZOR.address(0, 1), value: 5_000 },
        { address: LEDGER.address(0, 1), value: 7_000 },
      ],
      block: 823_500,
    });
    await scan(4);
    await scan(5);
    const day = '2024-01-04';
    expect((await chain(4)).suggestions).toContainEqual({
      type: 'receive',
      occurred_at: day,
      to_wallet: 4,
      sats: 5_000,
      kind: 'unknown',
    });
    expect((await chain(5)).suggestions).toEqual([
      { type: 'receive', occurred_at: day, to_wallet: 5, sats: 7_000, kind: 'unknown' },
    ]);
    expect((await chain(5)).unmatched).toEqual([both]);
  });

  it('an unconfirmed payment counts in the difference and is dated the day it was first seen', async () => {
    const pending = esplora.pay({ to: [{ address: LEDGER.address(0, 2), value: 3_000 }] });
    await scan(5);
    const c = await chain(5);
    expect(c).toMatchObject({ mempool_sats: 3_000, difference_sats: 3_000 + 7_000 });
    expect(c.transactions[0]).toMatchObject({
      txid: pending,
      confirmed: false,
      time: '2026-07-03T10:00:00.000Z',
    });
    expect(c.suggestions.at(-1)).toEqual({
      type: 'receive',
      occurred_at: '2026-07-03',
      to_wallet: 5,
      sats: 3_000,
      kind: 'unknown',
    });
  });

  it('deleting a watched wallet (no event names it) drops its key and scans', async () => {
    expect((await patch(6, { watch: [LEDGER.address(1, 9)] })).statusCode).toBe(200);
    expect((await scan(6)).statusCode).toBe(200);
    expect((await app.call('DELETE', '/api/wallets/6', undefined, auth)).statusCode).toBe(204);
    expect((await app.call('GET', '/api/wallets/6/chain', undefined, auth)).statusCode).toBe(404);
  });
});
