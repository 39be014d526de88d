import { Presets, SingleBar } from 'cli-progress';

/** A progress bar's values: `payload` fills the `{name}` fields of its format. */
export type BarPayload = Record<string, string | number>;

export interface Progress {
  update: (value: number, payload?: BarPayload) => void;
  increment: (delta: number, payload?: BarPayload) => void;
  setTotal: (total: number) => void;
  stop: () => void;
}

export interface BarSpec {
  /** cli-progress's format: `{bar}`, `{value}`, `{total}`, `{percentage}` and the payload's fields. */
  format: string;
  total: number;
  payload?: BarPayload;
  /** Where the bar is drawn; stderr leaves stdout to the result lines. */
  stream?: 'stdout' | 'stderr';
}

/**
 * What a command says: result lines, error lines and progress bars. The terminal draws them; a
 * running service sends them to a forwarding command as lines of NDJSON, which draws them the
 * same way, so a command shows the same whether it runs here or in the service.
 */
export interface CommandOutput {
  out: (line: string) => void;
  err: (line: string) => void;
  progress: (spec: BarSpec) => Progress;
}

export function terminalOutput(): CommandOutput {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    progress: (spec) => {
      const bar = new SingleBar(
        {
          format: spec.format,
          hideCursor: true,
          stream: spec.stream === 'stdout' ? process.stdout : process.stderr,
        },
        Presets.shades_classic,
      );
      bar.start(spec.total, 0, spec.payload ?? {});
      return {
        update: (value, payload) => bar.update(value, payload ?? {}),
        increment: (delta, payload) => bar.increment(delta, payload ?? {}),
        setTotal: (total) => bar.setTotal(total),
        stop: () => bar.stop(),
      };
    },
  };
}

/** Lines into arrays and bars into nothing: for tests and callers that want only the result. */
export function collectingOutput(): CommandOutput & { lines: { out: string[]; err: string[] } } {
  const lines = { out: [] as string[], err: [] as string[] };
  const quiet: Progress = { update: () => {}, increment: () => {}, setTotal: () => {}, stop: () => {} };
  return {
    lines,
    out: (line) => lines.out.push(line),
    err: (line) => lines.err.push(line),
    progress: () => quiet,
  };
}
