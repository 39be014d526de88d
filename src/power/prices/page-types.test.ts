import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Cheapest, ConsumerPrices } from '../costs/schemas.js';
import type * as Page from './page/api.js';
import { PAGE_TYPES, pageTypes } from './page-types.js';
import type { CheapestWindow } from '../windows/schemas.js';
import type { ElpriceDay, PricesDay } from './schemas.js';

/** true only where A and B are the same type, each assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

describe("the home page's answer types, written from the routes' schemas", () => {
  it('are current (run npm run page-types after changing a schema the page reads)', async () => {
    expect(readFileSync(PAGE_TYPES, 'utf8')).toBe(await pageTypes());
  });

  it('are what Static<> makes of each schema (the type checker holds them equal)', () => {
    const same: [
      Same<Page.ElpriceDay, ElpriceDay>,
      Same<Page.PricesDay, PricesDay>,
      Same<Page.ConsumerPrices, ConsumerPrices>,
      Same<Page.Cheapest, Cheapest>,
      Same<Page.CheapestWindow, CheapestWindow>,
    ] = [true, true, true, true, true];
    expect(same).toEqual([true, true, true, true, true]);
  });
});
