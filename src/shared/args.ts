import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * A command's arguments through node:util's parseArgs, strict: an unknown option or one without
 * its value is refused, `--name=value` equals `--name value`, and `--` ends the options (for a
 * file whose name begins with `-`). Answers the reason, in parseArgs' words, when they do not parse.
 */
export function commandArgs<const O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    return (e as Error).message;
  }
}
