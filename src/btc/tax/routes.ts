import type { App } from '../../context.js';
import { jsonOrCsv, sendCsv } from '../../http/csv.js';
import { problems } from '../../http/problem.js';
import * as s from './schemas.js';
import type { TaxService } from './service.js';

const tags = ['ledger'];
const security = [{ bearer: [] }];
/** The lots and the year's figures reveal the household's holdings, as the ledger's reads do. */
const config = { private: true };

type Year = Awaited<ReturnType<TaxService['year']>>;

/** One line per disposal and income, in the ledger's order. */
function csvRows(y: Year) {
  const rows = [
    ...y.disposals.map((d) => ({
      event_id: d.event_id,
      occurred_at: d.occurred_at,
      type: d.type,
      sats: d.sats,
      fee_sats: d.fee_sats,
      proceeds_dkk: d.proceeds_dkk,
      cost_dkk: d.cost_dkk,
      gain_dkk: d.gain_dkk,
      income_dkk: null,
      lots: d.lots.map((l) => `${l.event_id}:${l.sats}`).join(' '),
    })),
    ...y.income.map((i) => ({
      event_id: i.event_id,
      occurred_at: i.occurred_at,
      type: 'income',
      sats: i.sats,
      fee_sats: 0,
      proceeds_dkk: null,
      cost_dkk: null,
      gain_dkk: null,
      income_dkk: i.value_dkk,
      lots: '',
    })),
  ];
  return rows.sort((a, b) =>
    a.occurred_at < b.occurred_at ? -1 : a.occurred_at > b.occurred_at ? 1 : a.event_id - b.event_id,
  );
}

export function taxRoutes(app: App, tax: TaxService): void {
  app.get(
    '/api/lots',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'The open FIFO lots, per owner: each acquisition’s sats and cost left in DKK',
        querystring: s.LotsQuery,
        response: { 200: s.Lots, ...problems(400, 401, 502, 503) },
      },
    },
    async (req) => tax.lots(req.query),
  );
  app.get(
    '/api/tax/:year',
    {
      config,
      schema: {
        tags,
        security,
        summary:
          'One owner’s figures of a year for the Danish annual return (FIFO, DKK): every disposal with its lots, every income, rubrik 20 and 58; format=csv for a line per disposal and income',
        params: s.YearParams,
        querystring: s.YearQuery,
        response: { 200: jsonOrCsv(s.TaxYear), ...problems(400, 401, 502, 503) },
      },
    },
    async (req, reply) => {
      const y = await tax.year(req.params.year, req.query.owner);
      return req.query.format === 'csv'
        ? sendCsv(reply, `tax-${y.year}-${y.owner}.csv`, s.TAX_CSV_COLUMNS, csvRows(y))
        : y;
    },
  );
}
