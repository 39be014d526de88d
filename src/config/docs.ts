import type { Variable } from './variable.js';
import { VARIABLES } from './variables.js';

export const TABLE_START = '<!-- configuration table: generated from src/config/ by npm run config-docs -->';
export const TABLE_END = '<!-- end of the configuration table -->';

const entries = () => Object.entries(VARIABLES) as [string, Variable][];

/** The README's table of every variable, default and meaning. */
export function readmeTable(): string {
  const rows = entries().map(
    ([name, v]) => `| \`${name}\` | ${v.default === '' ? '' : `\`${v.default}\` `}| ${v.meaning} |`,
  );
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The README with its table between the markers replaced by the current one. */
export function withTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error('README.md has no configuration table markers');
  return `${readme.slice(0, start + TABLE_START.length)}\n${readmeTable()}\n${readme.slice(end)}`;
}

/** Markdown to the plain text of a comment: links keep their text, code loses its backticks. */
const plain = (md: string) => md.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1').replace(/`/g, '');

function wrap(text: string, width = 98): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + 1 + word.length > width && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  if (line !== '#') lines.push(line);
  return lines;
}

/** .env.example: every variable with its default, under its group, its meaning as a comment. */
export function envExample(): string {
  const out = [
    '# Every variable satwatt reads, with its default. Copy to .env and change what you need;',
    '# variables set in the environment win over .env. Generated from the declarations in src/config/',
    '# by npm run config-docs.',
  ];
  let group = '';
  for (const [name, v] of entries()) {
    if (v.group !== group) {
      group = v.group;
      out.push('', `## ${group}`);
    }
    if (v.meaning !== '') out.push(...wrap(plain(v.meaning)));
    out.push(`${name}=${v.default}`);
  }
  return `${out.join('\n')}\n`;
}
