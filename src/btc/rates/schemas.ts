import { Type } from 'typebox';
import { DAYS, Day } from '../../http/types.js';

export const CurrencyParams = Type.Object({
  date: Day(DAYS.rates, 'today (in Denmark) or a past day'),
});

export const CurrencyRates = Type.Object({
  date: Type.String({ format: 'date', description: 'the day asked for' }),
  rates_date: Type.String({
    format: 'date',
    description:
      'the ECB publication day the rates came from (the previous business day on weekends and holidays)',
  }),
  usd_eur: Type.Number({ description: 'EUR per USD' }),
  usd_dkk: Type.Number({ description: 'DKK per USD' }),
  eur_dkk: Type.Number({ description: 'DKK per EUR: usd_dkk / usd_eur' }),
});
