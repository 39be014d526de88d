import type { App } from '../../context.js';
import { problems } from '../../http/problem.js';
import * as s from './schemas.js';
import type { ChainService } from './service.js';

const tags = ['chain'];
const security = [{ bearer: [] }];
/** A wallet's addresses and transactions reveal the household's holdings: they need the token. */
const config = { private: true };

export function chainRoutes(app: App, chain: ChainService) {
  app.get(
    '/api/wallets/:id/chain',
    {
      config,
      schema: {
        tags,
        security,
        summary:
          'A watched wallet on the chain against the ledger: the last scan’s sums, its transactions matched to events, and event bodies for the unmatched',
        params: s.WalletIdParams,
        response: { 200: s.ChainComparison, ...problems(400, 401, 404, 409) },
      },
    },
    async (req) => chain.comparison(req.params.id),
  );
  app.post(
    '/api/wallets/:id/chain/scan',
    {
      schema: {
        tags,
        security,
        summary:
          'Scan a watched wallet now through ESPLORA_URL (a scan under way is joined), then answer as GET …/chain',
        params: s.WalletIdParams,
        response: { 200: s.ChainComparison, ...problems(400, 401, 404, 409, 429, 502, 503) },
      },
    },
    async (req) => {
      await chain.scanNow(req.params.id, req.deadline.signal);
      return chain.comparison(req.params.id);
    },
  );
}
