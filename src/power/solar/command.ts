import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { CliCommand } from '../../context.js';
import { commandArgs } from '../../shared/args.js';
import type { RunningService } from '../../remote/client.js';
import { terminalOutput, type CommandOutput } from '../../shared/command-output.js';
import {
  fileSource,
  SOLAR_UPLOAD_MAX_BYTES,
  SolarImportError,
  SolarService,
  type CsvSource,
} from './service.js';

export interface ImportSolarOptions {
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/** One CSV source into power.solar, all or nothing, with its progress bar and its result line. */
export async function importSolarSource(
  solar: SolarService,
  source: CsvSource,
  output: CommandOutput,
): Promise<number> {
  const bar = output.progress({
    format: `${path.basename(source.name)} {bar} {percentage}% | {rows} rows`,
    total: 1,
    payload: { rows: 0 },
  });
  try {
    const r = await solar.importSolar(source, (bytes, total, rows) => {
      bar.setTotal(Math.max(total, 1));
      bar.update(bytes, { rows });
    });
    bar.stop();
    output.out(`${source.name}: ${r.rows} rows, ${r.inserted} new, ${r.rows - r.inserted} already stored`);
    return 0;
  } catch (e) {
    bar.stop();
    if (e instanceof SolarImportError) {
      for (const bad of e.errors) output.err(`${source.name}:${bad.line}: ${bad.message}`);
      output.err(
        `${source.name}: nothing imported (${e.errors.length} bad row${e.errors.length > 1 ? 's' : ''} shown)`,
      );
    } else output.err(`${source.name}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

/** `import-solar FILE…`: each file is all or nothing; a bad file is reported and the next one goes on. */
export function importSolarCommand(opts: ImportSolarOptions = {}): CliCommand {
  const terminal = terminalOutput();
  const output: CommandOutput = {
    out: opts.out ?? terminal.out,
    err: opts.err ?? terminal.err,
    progress: terminal.progress,
  };
  const each = async (args: string[], one: (file: string) => Promise<number>) => {
    const parsed = commandArgs(args, {});
    if (typeof parsed === 'string') {
      output.err(`import-solar: ${parsed}`);
      return 2;
    }
    const files = parsed.positionals;
    if (files.length === 0) {
      output.err('import-solar: name at least one CSV file');
      return 2;
    }
    let failed = 0;
    for (const file of files) if ((await one(file)) !== 0) failed++;
    return failed > 0 ? 1 : 0;
  };
  return {
    name: 'import-solar',
    usage: 'import-solar FILE…    import hourly solar panel readings from CSV files',
    run: (args, ctx) =>
      each(args, async (file) => {
        let source: CsvSource;
        try {
          source = await fileSource(file);
        } catch (e) {
          output.err(`${file}: ${(e as Error).message}`);
          return 1;
        }
        return importSolarSource(new SolarService({ db: ctx.database.db, clock: ctx.clock }), source, output);
      }),
    // The file is sent as the request's body: the service may not be allowed to read the user's files.
    forward: (args, service: RunningService) =>
      each(args, async (file) => {
        let data: Buffer;
        try {
          if ((await stat(file)).size > SOLAR_UPLOAD_MAX_BYTES)
            throw new Error(
              `larger than ${SOLAR_UPLOAD_MAX_BYTES} bytes, the most the service takes at once`,
            );
          data = await readFile(file);
        } catch (e) {
          output.err(`${file}: ${(e as Error).message}`);
          return 1;
        }
        return service.runJob(
          'import-solar',
          '/api/jobs/import-solar',
          { query: { name: file }, body: { type: 'text/csv', data } },
          output,
        );
      }),
  };
}

/** A CSV that came as a request's body. */
export function bufferSource(name: string, data: Buffer): CsvSource {
  return { name, size: data.length, open: () => Readable.from([data]) };
}
