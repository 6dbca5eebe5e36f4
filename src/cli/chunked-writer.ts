/**
 * A writer that copies what it is given into chunks of `size` bytes and writes each one full: many small pieces
 * (a line's parts, for each of thousands of files) cost a few writes, and a piece may be a view of a buffer that
 * its owner reuses as soon as `push` returns. A chunk is reused once the stream says it is written (`done`), and
 * a new one made while none is free: fresh memory costs its first touch (a page fault per 4 KiB, about 10 µs each
 * on this project's test machine), and a warm `comity symbols` writes tens of megabytes.
 */
export interface ChunkedWriter {
  push(piece: Uint8Array): void;
  /**
   * Null while few chunks are in flight; else a promise to wait for: the next chunk written, once the stream has
   * said it writes them (a slow reader holds the feeder back, without a busy wait); until it has, the event loop's
   * next turn, when the stream has its chance to say so (a writer fed in one long synchronous loop never reuses a
   * chunk otherwise; a stream that never says only costs a turn each time).
   */
  room(): Promise<void> | null;
  /** Writes what is left. */
  end(): void;
}

/**
 * `inFlight`: how many chunks may be written and not yet said to be before the feeder is asked to wait. Each of them
 * is memory the next chunk cannot reuse: four (a quarter of a megabyte) fill a pipe's buffer several times over, and
 * sixteen cost a warm run the page faults of a megabyte of fresh chunks.
 */
export function chunkedWriter(write: (chunk: Uint8Array, done: () => void) => void, size = 64 * 1024, inFlight = 4): ChunkedWriter {
  const free: Buffer[] = [];
  let chunk: Buffer = Buffer.allocUnsafe(size);
  let used = 0;
  let flying = 0;
  // Whether the stream has said a chunk was written; who waits for the next one.
  let reports = false;
  let wake: (() => void) | null = null;
  const flush = (): void => {
    if (used === 0) return;
    const full = chunk;
    flying++;
    write(full.subarray(0, used), () => {
      flying--;
      free.push(full);
      reports = true;
      const waiting = wake;
      wake = null;
      waiting?.();
    });
    chunk = free.pop() ?? Buffer.allocUnsafe(size);
    used = 0;
  };
  return {
    push(piece) {
      // Across as many chunks as it fills (a large piece copied whole, to a buffer of its own, was fresh memory each
      // time: a Python file's line can be hundreds of kilobytes).
      for (let from = 0; from < piece.length; ) {
        if (used === size) flush();
        const n = Math.min(size - used, piece.length - from);
        chunk.set(from === 0 && n === piece.length ? piece : piece.subarray(from, from + n), used);
        used += n;
        from += n;
      }
    },
    room() {
      if (flying < inFlight) return null;
      return new Promise<void>((resolve) => (reports ? (wake = resolve) : setImmediate(resolve)));
    },
    end: flush,
  };
}
