/**
 * A writer that copies what it is given into chunks of `size` bytes and writes each full one: many small pieces
 * (a line's parts, for each of thousands of files) cost a few writes, and a piece may be a view of a buffer that
 * its owner reuses as soon as `push` returns. Each chunk written is a new buffer (the stream may keep it).
 */
export interface ChunkedWriter {
  push(piece: Uint8Array): void;
  /** Writes what is left. */
  end(): void;
}

export function chunkedWriter(write: (chunk: Uint8Array) => void, size = 64 * 1024): ChunkedWriter {
  let chunk = Buffer.allocUnsafe(size);
  let used = 0;
  const flush = (): void => {
    if (used === 0) return;
    write(chunk.subarray(0, used));
    chunk = Buffer.allocUnsafe(size);
    used = 0;
  };
  return {
    push(piece) {
      if (piece.length > size) {
        // A large piece goes out as a copy of its own, after what is waiting.
        flush();
        write(Buffer.from(piece));
        return;
      }
      if (used + piece.length > size) flush();
      chunk.set(piece, used);
      used += piece.length;
    },
    end: flush,
  };
}
