/** SQLSTATEs of a server session that ended or cannot begin: the server is restarting or failing over. */
const GONE = new Set(['57P01', '57P02', '57P03', '53300']);
/**
 * Class 08 but no lost connection: a protocol violation is the statement's own (a bind message
 * that overflowed, say), answered with an error on a session that goes on; a retry gets the same.
 */
const STATEMENT = new Set(['08P01']);
/** The driver's own words when the socket closed under it (it gives no SQLSTATE then). */
const DRIVER =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection closed)/;
const SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether an error means the database connection was lost, not that the statement was wrong:
 * the request can be tried again (a write with its Idempotency-Key is applied at most once).
 */
export function isConnectionLost(e: unknown): boolean {
  for (let cause = e, depth = 0; cause && typeof cause === 'object' && depth < 5; depth++) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && STATEMENT.has(code)) return false;
    if (typeof code === 'string' && (GONE.has(code) || code.startsWith('08') || SOCKET.has(code)))
      return true;
    if (typeof message === 'string' && DRIVER.test(message)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The database cannot be used now, though the request was sound: the embedded database stopped
 * answering in step and is being opened again. SQLSTATE connection_failure, so that it is
 * answered as a lost connection is (503, retry).
 */
export class DatabaseUnavailable extends Error {
  readonly code = '08006';
}
