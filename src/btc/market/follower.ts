/**
 * Follows the stored rows into a process's stream of messages: the row that this process wrote is
 * published at once; a NOTIFY from any process wakes it to read the latest row (the truth) and
 * publish it when it is newer than what went out last.
 */
export class RowFollower<Row extends { id: number }, Message> {
  private lastId = 0;
  private reading: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly publish: (message: Message) => void,
    private readonly readLatest: () => Promise<Row | undefined>,
    private readonly toMessage: (row: Row) => Message,
    private readonly onError: (e: unknown) => void,
  ) {}

  published(row: Row): void {
    if (row.id <= this.lastId) return;
    this.lastId = row.id;
    this.publish(this.toMessage(row));
  }

  /** A row whose message this process already published before storing it. */
  seen(id: number): void {
    this.lastId = Math.max(this.lastId, id);
  }

  /** Called with the NOTIFY payload (the new row's id) or with nothing at start. */
  wake(payload?: string): void {
    const id = Number(payload);
    if (payload !== undefined && Number.isInteger(id) && id <= this.lastId) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        try {
          const row = await this.readLatest();
          if (row) this.published(row);
        } catch (e) {
          this.onError(e);
        }
      } while (this.again);
      this.reading = null;
    })();
  }

  async idle(): Promise<void> {
    await this.reading;
  }
}
