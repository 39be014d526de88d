import type { App } from '../../context.js';
import { csvColumns, jsonOrCsv, sendCsv } from '../../http/csv.js';
import { badRequest, problems } from '../../http/problem.js';
import { Bill, BillLine, BillQuery } from './schemas.js';
import { MonthOutOfRange, type BillService } from './service.js';

const LINE_COLUMNS = csvColumns(BillLine);

export function billRoutes(app: App, service: BillService) {
  app.get(
    '/api/bill',
    {
      // What the household used in a month: private like metering.
      config: { private: true },
      schema: {
        tags: ['metering'],
        summary: "The month's electricity bill: a line per charge and subscription, VAT, total",
        security: [{ bearer: [] }],
        querystring: BillQuery,
        response: { 200: jsonOrCsv(Bill), ...problems(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const { month, format } = request.query;
      let answer: Bill;
      try {
        answer = await service.monthBill(month, request.deadline.signal);
      } catch (e) {
        if (e instanceof MonthOutOfRange) throw badRequest(e.message);
        throw e;
      }
      if (format !== 'csv') return answer;
      const sums = (name: string, amount: number) => ({
        name,
        kind: name,
        owner: null,
        kwh: null,
        amount_dkk: amount,
      });
      return sendCsv(reply, `bill-${month}.csv`, LINE_COLUMNS, [
        ...answer.lines.map((l) => ({ ...l })),
        sums('subtotal', answer.subtotal_dkk),
        sums('vat', answer.vat_dkk),
        sums('total', answer.total_dkk),
      ]);
    },
  );
}
