import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { csvColumns, csvField, csvLine, csvLines, neutralised } from './csv.js';
import { Decimal, Nullable } from './types.js';

/** A small RFC 4180 reader, to check that what is written reads back as it was. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

describe('CSV (RFC 4180)', () => {
  it('writes numbers as plain dot decimals, never with an exponent', () => {
    expect(csvField(0.0000001)).toBe('0.0000001');
    expect(csvField(1e21)).toBe('1000000000000000000000');
    expect(csvField(-12.5)).toBe('-12.5');
    expect(csvField(2_100_000_000_000_000)).toBe('2100000000000000');
    expect(() => csvField(Infinity)).toThrow(/finite/);
    expect(() => csvField(Number.NaN)).toThrow(/finite/);
  });

  it('keeps decimal strings digit for digit and leaves empty what is null', () => {
    expect(csvLine(['123456789012345.12345678', null, undefined, true])).toBe(
      '123456789012345.12345678,,,true\r\n',
    );
  });

  it('quotes fields with commas, quotes and line breaks, doubling the quotes', () => {
    expect(csvLine(['a,b', 'say "hi"', 'two\nlines', 'cr\r'])).toBe(
      '"a,b","say ""hi""","two\nlines","cr\r"\r\n',
    );
  });

  it('reads back every string as written', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), { maxLength: 5 }),
        (rows) => {
          const text = rows.map((r) => csvLine(r)).join('');
          expect(parseCsv(text)).toEqual(rows);
        },
      ),
    );
  });

  it('streams a header of the field names and one line per row, in column order', async () => {
    async function* rows() {
      yield { b: 2, a: 'x' };
      yield { a: 'y', b: null, extra: 'ignored' };
    }
    const out: string[] = [];
    for await (const line of csvLines(['a', 'b'], rows())) out.push(line);
    expect(out.join('')).toBe('a,b\r\nx,2\r\ny,\r\n');
  });

  it('writes for Danish spreadsheets: ";" between fields, decimal commas in decimal columns only, a BOM', async () => {
    const columns = { names: ['name', 'kwh', 'amount', 'day'], decimals: new Set(['kwh', 'amount']) };
    const rows = [
      { name: 'a;b', kwh: 0.0000001, amount: '-12.50', day: '2026-01-15' },
      { name: '1.5', kwh: 3, amount: '7', day: null },
      { name: 'x,y', kwh: 1e21, amount: null, day: '2026' },
    ];
    let out = '';
    for await (const line of csvLines(columns, rows, 'da')) out += line;
    expect(out).toBe(
      '\uFEFFname;kwh;amount;day\r\n' +
        '"a;b";0,0000001;-12,50;2026-01-15\r\n' +
        '1.5;3;7;\r\n' +
        'x,y;1000000000000000000000;;2026\r\n',
    );
  });

  it('neutralises a text cell a spreadsheet would run as a formula, in both dialects; numbers stay numbers', async () => {
    const Row = Type.Object({
      name: Type.String(),
      owner: Nullable(Type.String()),
      kwh: Nullable(Type.Number()),
      amount: Decimal(),
      hours: Type.Integer(),
    });
    const columns = csvColumns(Row);
    const rows = [
      {
        name: '=HYPERLINK("http://x","y")',
        owner: "=cmd|' /C calc'!A0",
        kwh: -5.2,
        amount: '-12.50',
        hours: -3,
      },
      { name: '+1', owner: '-2+3', kwh: null, amount: '7', hours: 0 },
      { name: '@SUM(A1)', owner: '\tx', kwh: 1, amount: '-0.5', hours: 1 },
      { name: '\r=1', owner: 'Radius Elnet A/S', kwh: 0.25, amount: '1', hours: 2 },
      // a decimal column holding something else than a number is text too
      { name: '-5.2', owner: null, kwh: 2, amount: '=1+1', hours: 3 },
    ];
    let plain = '';
    for await (const line of csvLines(columns, rows)) plain += line;
    expect(parseCsv(plain).slice(1)).toEqual([
      [`'=HYPERLINK("http://x","y")`, `'=cmd|' /C calc'!A0`, '-5.2', '-12.50', '-3'],
      [`'+1`, `'-2+3`, '', '7', '0'],
      [`'@SUM(A1)`, `'\tx`, '1', '-0.5', '1'],
      [`'\r=1`, 'Radius Elnet A/S', '0.25', '1', '2'],
      [`'-5.2`, '', '2', `'=1+1`, '3'],
    ]);
    let da = '';
    for await (const line of csvLines(columns, rows, 'da')) da += line;
    const lines = da.split('\r\n');
    expect(lines[1]).toBe(`"'=HYPERLINK(""http://x"",""y"")";'=cmd|' /C calc'!A0;-5,2;-12,50;-3`);
    expect(lines[3]).toBe(`'@SUM(A1);'\tx;1;-0,5;1`);
    // without a schema every column is text
    expect(neutralised('-12.50', false)).toBe(`'-12.50`);
    expect(neutralised('-12.50', true)).toBe('-12.50');
    expect(neutralised(-12.5, false)).toBe(-12.5);
  });
});
