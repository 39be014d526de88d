import { Presets, SingleBar } from 'cli-progress';
import path from 'node:path';
import type { CliCommand } from '../../context.js';
import { importSolarFile, SolarImportError } from './service.js';

export interface ImportSolarOptions {
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/** `import-solar FILE…`: each file is all or nothing; a bad file is reported and the next one goes on. */
export function importSolarCommand(opts: ImportSolarOptions = {}): CliCommand {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = opts.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  return {
    name: 'import-solar',
    usage: 'import-solar FILE…    import hourly solar panel readings from CSV files',
    async run(files, ctx) {
      if (files.length === 0) {
        err('import-solar: name at least one CSV file');
        return 2;
      }
      let failed = 0;
      for (const file of files) {
        const bar = new SingleBar(
          { format: `${path.basename(file)} {bar} {percentage}% | {rows} rows`, stream: process.stderr },
          Presets.shades_classic,
        );
        bar.start(1, 0, { rows: 0 });
        try {
          const r = await importSolarFile(ctx.database.db, file, (bytes, total, rows) => {
            bar.setTotal(Math.max(total, 1));
            bar.update(bytes, { rows });
          });
          bar.stop();
          out(`${file}: ${r.rows} rows, ${r.inserted} new, ${r.rows - r.inserted} already stored`);
        } catch (e) {
          bar.stop();
          failed++;
          if (e instanceof SolarImportError) {
            for (const bad of e.errors) err(`${file}:${bad.line}: ${bad.message}`);
            err(
              `${file}: nothing imported (${e.errors.length} bad row${e.errors.length > 1 ? 's' : ''} shown)`,
            );
          } else err(`${file}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      return failed > 0 ? 1 : 0;
    },
  };
}
