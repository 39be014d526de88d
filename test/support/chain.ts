import { Addresses } from '../../src/btc/chain/derive.js';
import { parseWatch } from '../../src/btc/chain/keys.js';
import type { Services } from '../../src/services.js';
import { MemoryRates, RATES_0703 } from '../fakes/market-rates.js';
import { btc } from './services.js';

/** BIP84's and BIP86's account keys of "abandon … about", watched by wallets 4 (Trezor) and 5 (Ledger). */
export const ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
export const TR_DESCRIPTOR =
  'tr([73c5da0a/86h/0h/0h]xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ/<0;1>/*)';
export const TREZOR = new Addresses(parseWatch(ZPUB, 'mainnet'));
export const LEDGER = new Addresses(parseWatch(TR_DESCRIPTOR, 'mainnet'));

export const TOKEN = 'chain-test-token-0123456789';
export const auth = { authorization: `Bearer ${TOKEN}` };

/** The ledger (with memory rates) and the chain feature, its hourly job waiting `firstRunDelayMs` (an hour unless told). */
export function chainServices(opts: { firstRunDelayMs?: number } = {}): Partial<Services> {
  return btc({
    rates: new MemoryRates(RATES_0703),
    only: ['ledger', 'chain'],
    chain: { firstRunDelayMs: opts.firstRunDelayMs ?? 3_600_000 },
  });
}
