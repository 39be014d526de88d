/** Messages handed to whoever listens, as they come: how a service tells the edge without knowing it. */
export class Topic<T> {
  private readonly listeners = new Set<(message: T) => void>();

  publish(message: T): void {
    for (const l of this.listeners) l(message);
  }

  /** Returns the function that stops listening. */
  listen(listener: (message: T) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
