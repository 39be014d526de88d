import type { App } from '../../context.js';
import { problems } from '../../http/problem.js';
import type { DailyRates } from './service.js';
import { CurrencyParams, CurrencyRates } from './schemas.js';
import type { Rates } from './service.js';

export function ratesRoutes(app: App, rates: Rates): void {
  app.get(
    '/api/currencies/:date',
    {
      schema: {
        tags: ['rates'],
        summary: 'USD-based EUR and DKK rates of a day, with the EUR/DKK cross',
        description:
          'Today answers the latest stored record; a past day its stored record, fetched from ' +
          'Frankfurter (ECB) and stored first when missing; a future or malformed date is 400.',
        params: CurrencyParams,
        response: { 200: CurrencyRates, ...problems(400, 502, 503) },
      },
    },
    async (request) => toJson(await rates.forRequest(request.params.date, request.deadline.signal)),
  );
}

function toJson(r: DailyRates) {
  return {
    date: r.date,
    rates_date: r.rates_date,
    usd_eur: Number(r.usd_eur),
    usd_dkk: Number(r.usd_dkk),
    eur_dkk: Number(r.eur_dkk),
  };
}
