import { mkdir, open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the embedded database in ${dataDir} is in use by process ${pid}; ` +
        'only one process may open it (use a PostgreSQL server via DATABASE_URL to run several)',
    );
  }
}

const LOCK_FILE = 'satwatt.lock';
/** Where the holder serves HTTP, written once it listens: the commands beside it find it here. */
const ADDRESS_FILE = 'satwatt.address';

/**
 * PGlite is one process's database: a second process on the same files would corrupt them.
 * A pid file created with O_EXCL decides who owns the folder; a file left by a dead process is taken over.
 */
export async function acquireDataDirLock(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const file = await open(lockPath, 'wx');
      await file.writeFile(String(process.pid));
      await file.close();
      // an address a killed holder left says nothing about this one
      await forgetServiceAddress(dataDir);
      return async () => {
        await forgetServiceAddress(dataDir);
        await unlink(lockPath).catch(() => {});
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = await dataDirHolder(dataDir);
    if (owner !== null) throw new DataDirLockedError(dataDir, owner);
    await unlink(lockPath).catch(() => {});
  }
  throw new Error(`could not lock ${dataDir}`);
}

/** The live process that holds the folder, or null when none does (no lock, or a dead one's). */
export async function dataDirHolder(dataDir: string): Promise<number | null> {
  const owner = Number((await readFile(path.join(dataDir, LOCK_FILE), 'utf8').catch(() => '')).trim());
  return Number.isInteger(owner) && owner > 0 && isAlive(owner) ? owner : null;
}

/** Where the process holding the folder listens; never its token, only whether one is needed. */
export interface ServiceAddress {
  pid: number;
  /** The address it was told to bind (HOST); a wildcard is reached on loopback. */
  host: string;
  /** The port it listens on, as bound (PORT=0 takes a free one). */
  port: number;
  /** Whether its private routes need API_TOKEN. */
  token: boolean;
}

/** Said by the holder once it listens; written whole (a reader never sees half of it). */
export async function recordServiceAddress(dataDir: string, address: ServiceAddress): Promise<void> {
  const file = path.join(dataDir, ADDRESS_FILE);
  const partial = `${file}.${process.pid}`;
  await writeFile(partial, `${JSON.stringify(address)}\n`);
  await rename(partial, file);
}

/** Removed when the holder stops listening, and by whoever takes the folder over. */
export async function forgetServiceAddress(dataDir: string): Promise<void> {
  await unlink(path.join(dataDir, ADDRESS_FILE)).catch(() => {});
}

/**
 * Where `holder` serves, or null when it has said nothing (a command, or a service starting or
 * stopping): an address left by another process, a killed one, is not the holder's.
 */
export async function serviceAddressOf(dataDir: string, holder: number): Promise<ServiceAddress | null> {
  const text = await readFile(path.join(dataDir, ADDRESS_FILE), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const a = JSON.parse(text) as Partial<ServiceAddress>;
    const valid =
      a.pid === holder &&
      typeof a.host === 'string' &&
      Number.isInteger(a.port) &&
      a.port! > 0 &&
      a.port! < 65536 &&
      typeof a.token === 'boolean';
    return valid ? (a as ServiceAddress) : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
