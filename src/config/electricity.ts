import { gridCompany } from '../shared/grid-companies.js';
import { items, matching, oneOf, optional, section, variable } from './variable.js';

const GLN = '^\\d{13}$';

/** The household's electricity: its metering token, grid company, price area and supplier. */
export const ELECTRICITY = section('Electricity', {
  METERING_TOKEN: optional({
    default: '',
    meaning: 'Eloverblik refresh token; when empty it is read from the file `.token`',
    secret: true,
  }),
  GRID_COMPANY_GLN: variable(
    {
      default: '',
      meaning:
        "without a metering token: the grid company whose household tariff applies ([the list](docs/power.md#grid-companies)); unset means not configured, said by `/health`, `/api/consumer-prices` and the page, and no grid tariff is priced. With a metering token the meter's own charges apply",
    },
    (t) => t.Union([t.String({ pattern: GLN }), t.Null()]),
    (gln, read) => {
      if (gln === '') return null;
      if (!new RegExp(GLN).test(gln)) return read.refuse(`expected a 13-digit GLN number, got "${gln}"`, gln);
      if (read.text('GRID_TARIFF_NOTES') === '' && !gridCompany(gln))
        read.refuse(
          `${gln} is no Danish grid company satwatt knows (docs/power.md lists them); set GRID_TARIFF_NOTES to the notes of its household tariff in DatahubPricelist`,
          0,
        );
      return gln;
    },
  ),
  GRID_TARIFF_NOTES: variable(
    {
      default: '',
      meaning:
        "notes (DatahubPricelist `Note`) of that company's household tariff, separated by `;`, overriding the shipped list (a company not in the list needs them)",
    },
    (t) => t.Union([t.Array(t.String({ minLength: 1, maxLength: 200 }), { minItems: 1 }), t.Null()]),
    (v, read) => {
      if (v === '') return null;
      const notes = items(v, ';');
      if (notes.length === 0 || notes.some((n) => n.length > 200))
        read.refuse(`expected notes separated by ";" (e.g. "Nettarif C time"), got "${v}"`, 0);
      if (read.text('GRID_COMPANY_GLN') === '')
        read.refuse('needs GRID_COMPANY_GLN: the notes are looked up under that grid company', 0);
      return notes;
    },
  ),
  ENERGINET_GLN: matching(
    {
      default: '5790000432752',
      meaning:
        "Energinet's GLN in DatahubPricelist: transmission (40000) and system (41000) tariffs, electricity tax (EA-001)",
    },
    GLN,
    'a 13-digit GLN number',
  ),
  PRICE_AREA: oneOf(
    {
      default: 'DK1',
      meaning:
        "the household's price area (DK1 or DK2): default of `/api/consumer-prices` and `/api/cheapest`, area of `/api/costs`",
    },
    ['DK1', 'DK2'],
    'DK1 or DK2',
    (v) => v.toUpperCase(),
  ),
  SUPPLIER_MARKUP_DKK_KWH: matching(
    {
      default: '0',
      meaning: "the electricity supplier's markup, DKK/kWh excl. VAT, exact (up to 6 decimals)",
    },
    '^-?\\d{1,3}(\\.\\d{1,6})?$',
    'an amount in DKK/kWh excl. VAT with at most 6 decimals (e.g. 0.05)',
    (v) => v.replace(/^-0(\.0*)?$/, '0'),
  ),
  SUPPLIER_SUBSCRIPTION_DKK_MONTH: matching(
    {
      default: '0',
      meaning:
        "the supplier's own subscription, DKK per month excl. VAT, exact (up to 4 decimals): a line of `/api/bill`",
    },
    '^\\d{1,6}(\\.\\d{1,4})?$',
    'an amount in DKK per month excl. VAT, at least 0, with at most 4 decimals (e.g. 29)',
  ),
  VAT_RATE: matching(
    { default: '0.25', meaning: 'VAT on every part of the consumer price (0 to 1, up to 4 decimals)' },
    '^(0(\\.\\d{1,4})?|1(\\.0{1,4})?)$',
    'a rate from 0 to 1 with at most 4 decimals (0.25 is 25 %)',
  ),
});
