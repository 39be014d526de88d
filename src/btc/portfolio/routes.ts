import type { App } from '../../context.js';
import { problems } from '../../http/problem.js';
import { Portfolio, PortfolioQuery } from './schemas.js';
import type { PortfolioService } from './service.js';

export function portfolioRoutes(app: App, portfolio: PortfolioService): void {
  app.get(
    '/api/portfolio',
    {
      // It reveals the household's holdings, as the ledger's reads do.
      config: { private: true },
      schema: {
        tags: ['ledger'],
        security: [{ bearer: [] }],
        summary: 'Holdings, their cost and their value now, or as of the end of a day (?at=)',
        querystring: PortfolioQuery,
        response: { 200: Portfolio, ...problems(400, 401, 503) },
      },
    },
    async (request) => portfolio.portfolio(request.query.at),
  );
}
