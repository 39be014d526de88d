import { describe, expect, it } from 'vitest';
import { commandArgs } from './args.js';

describe('commandArgs: the commands’ arguments through node:util parseArgs', () => {
  const options = { times: { type: 'string' }, 'dry-run': { type: 'boolean' } } as const;

  it('takes positionals and options in any order, --name=value as --name value', () => {
    expect(commandArgs(['buys', '--times', '3', '--dry-run'], options)).toEqual({
      values: { times: '3', 'dry-run': true },
      positionals: ['buys'],
    });
    expect(commandArgs(['--times=3', 'buys'], options)).toMatchObject({
      values: { times: '3' },
      positionals: ['buys'],
    });
  });

  it('answers the reason for an unknown option or a missing value', () => {
    expect(commandArgs(['--fast'], options)).toMatch(/^Unknown option '--fast'/);
    expect(commandArgs(['--times'], options)).toMatch(/^Option '--times <value>' argument missing/);
  });

  it('takes a name beginning with "-" after --', () => {
    expect(commandArgs(['--', '-odd.csv'], {})).toMatchObject({ positionals: ['-odd.csv'] });
  });
});
