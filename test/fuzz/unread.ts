import fc from 'fast-check';
import type { FuzzRequest } from './driver.js';

/** Names no route takes, and names some routes take (the others must refuse them all the same). */
const UNKNOWN_PARAMS = [
  'unexpected_param_xyz',
  'format',
  'csv_locale',
  'callback',
  'date',
  'Date',
  '__proto__',
];

/** Bodies sent where a route takes none: the JSON a client might think a POST reads, and others. */
const UNREAD_BODIES = [
  { body: JSON.stringify({ date: '2026-07-01' }), type: 'application/json' },
  { body: '{}', type: 'application/json' },
  { body: 'date=2026-07-01', type: 'application/x-www-form-urlencoded' },
  { body: 'date,sats\n2026-07-01,1\n', type: 'text/csv' },
];

/**
 * Input the route does not read, added to a request it takes: an unknown query parameter (a
 * 400 naming it), and where the route takes no body, a body (a 400 naming `body`).
 */
export function unreadInput(
  request: fc.Arbitrary<FuzzRequest>,
  takes: { query: readonly string[]; body: boolean },
): fc.Arbitrary<FuzzRequest>[] {
  const names = UNKNOWN_PARAMS.filter((n) => !takes.query.includes(n));
  const out = [
    fc.tuple(request, fc.constantFrom(...names), fc.constantFrom('1', '', 'xyz')).map(([r, name, value]) => ({
      ...r,
      kind: 'invalid' as const,
      url: `${r.url}${r.url.includes('?') ? '&' : '?'}${encodeURIComponent(name)}=${value}`,
      refusal: `querystring.${name}: unknown parameter`,
    })),
  ];
  if (!takes.body)
    out.push(
      fc.tuple(request, fc.constantFrom(...UNREAD_BODIES)).map(([r, b]) => ({
        ...r,
        kind: 'invalid' as const,
        body: b.body,
        contentType: b.type,
        refusal: 'body: ',
      })),
    );
  return out;
}
