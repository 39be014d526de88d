/**
 * The largest MQTT packet the client takes: what it subscribes to is Home Assistant's birth
 * message (`online`) and the broker's acknowledgements, so 64 KiB is far more than it needs.
 */
export const MAX_INCOMING_PACKET_BYTES = 64 * 1024;

/** A packet the broker began to send that is larger than the client takes; the connection is closed. */
export class PacketTooLarge extends Error {
  readonly code = 'ERR_MQTT_PACKET_TOO_LARGE';
  constructor(
    readonly bytes: number,
    readonly max: number,
  ) {
    super(`the broker sent a packet of ${bytes} bytes; at most ${max} are taken (the connection is closed)`);
  }
}

/**
 * Follows the packets of an MQTT byte stream by their fixed headers alone (a type byte and the
 * remaining length, 1 to 4 bytes of 7 bits): MQTT.js's parser gathers a whole packet in memory
 * before anything can look at its size, so a 100 MB retained message would be held at once. This
 * sees the size as soon as the header arrives, in any chunking, whatever the protocol version.
 */
export class PacketSizeGuard {
  /** Bytes of the current packet's body still to pass; -1 while a header is being read. */
  private remaining = -1;
  private headerBytes = 0;
  private length = 0;
  private multiplier = 1;

  constructor(readonly max: number) {}

  /** Passes a chunk; throws PacketTooLarge at the first header announcing more than `max` bytes. */
  feed(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.remaining > 0) {
        const skip = Math.min(this.remaining, chunk.length - i);
        this.remaining -= skip;
        i += skip;
        continue;
      }
      const byte = chunk[i++]!;
      if (this.headerBytes === 0) {
        // the type and flags byte
        this.headerBytes = 1;
        this.length = 0;
        this.multiplier = 1;
        continue;
      }
      this.length += (byte & 0x7f) * this.multiplier;
      this.multiplier *= 128;
      this.headerBytes++;
      if (byte & 0x80 && this.headerBytes < 5) continue;
      const total = this.headerBytes + this.length;
      if (total > this.max) throw new PacketTooLarge(total, this.max);
      this.headerBytes = 0;
      this.remaining = this.length;
    }
  }
}

/** Closes `stream` with PacketTooLarge as soon as a packet over `max` bytes begins to arrive. */
export function guardIncomingPackets(
  stream: NodeJS.ReadableStream & { destroy(e?: Error): void },
  max: number,
): void {
  const guard = new PacketSizeGuard(max);
  const onData = (chunk: Uint8Array) => {
    try {
      guard.feed(chunk);
    } catch (e) {
      stream.removeListener('data', onData);
      stream.destroy(e as Error);
    }
  };
  stream.on('data', onData);
}
