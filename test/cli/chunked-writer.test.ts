import { describe, expect, it } from "vitest";
import { chunkedWriter } from "../../src/cli/chunked-writer.js";

describe("chunkedWriter", () => {
  it("writes what it is given, in order, in chunks of at most its size, copying each piece at once", () => {
    const written: Uint8Array[] = [];
    // (a stream that keeps every chunk, and never says it is written: no chunk is reused)
    const out = chunkedWriter((chunk) => void written.push(chunk), 8);
    const borrowed = Buffer.from("abc");
    const expected: string[] = [];
    for (const text of ["abc", "defgh", "", "ij", "a piece over the size", "k", "lmnopqrs", "t"]) {
      // The same buffer each time, overwritten as soon as push returns (as a cache's borrowed bytes are).
      const piece = text.length <= borrowed.length ? borrowed.subarray(0, text.length) : Buffer.from(text);
      piece.write(text);
      out.push(piece);
      borrowed.fill("x");
      expected.push(text);
    }
    out.end();
    expect(Buffer.concat(written).toString()).toBe(expected.join(""));
    // Every chunk full but the last: a piece that does not fit goes on in the next.
    expect(written.map((c) => c.length)).toEqual([8, 8, 8, 8, 8, 1]);
    out.end();
    expect(written).toHaveLength(6);
  });

  it("reuses a chunk once the stream says it is written, and asks its feeder to wait while many are in flight", async () => {
    const text: string[] = [];
    // Where each chunk's memory is (small buffers share Node's pool: its ArrayBuffer and offset).
    const ids = new Map<ArrayBufferLike, number>();
    const buffers = new Set<string>();
    const pending: Array<() => void> = [];
    const out = chunkedWriter(
      (chunk, done) => {
        text.push(Buffer.from(chunk).toString());
        if (!ids.has(chunk.buffer)) ids.set(chunk.buffer, ids.size);
        buffers.add(`${ids.get(chunk.buffer)}@${chunk.byteOffset}`);
        pending.push(done);
      },
      4,
      2,
    );
    const pieces = ["abcd", "efgh", "ijkl", "mnop", "qrst", "uv"];
    out.push(Buffer.from(pieces[0] ?? ""));
    out.push(Buffer.from(pieces[1] ?? ""));
    expect(out.room()).toBeNull();
    out.push(Buffer.from(pieces[2] ?? ""));
    // Two chunks written and not yet said to be: the feeder is asked to wait a turn of the event loop.
    const wait = out.room();
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    for (const done of pending.splice(0)) done();
    expect(out.room()).toBeNull();
    for (const piece of pieces.slice(3)) out.push(Buffer.from(piece));
    out.end();
    for (const done of pending.splice(0)) done();
    expect(text.join("")).toBe(pieces.join(""));
    // Six chunks written from four buffers: the first two came back and were each filled again; the third was still
    // in flight, so the last chunk needed a new one.
    expect(text).toHaveLength(6);
    expect(buffers.size).toBe(4);
  });

  it("holds its feeder back until a slow stream has written a chunk, and never hangs on a stream that says nothing", async () => {
    // A pipe whose reader is slow: the first chunk fits in its buffer (said written at once), each later one is said
    // written on a later turn of the event loop.
    const order: string[] = [];
    const slow = chunkedWriter(
      (chunk, done) => {
        order.push(`write ${Buffer.from(chunk).toString()}`);
        const said = (): void => {
          order.push("written");
          done();
        };
        if (order.length === 1) said();
        else setImmediate(said);
      },
      2,
      1,
    );
    for (const piece of ["ab", "cd", "ef", "gh"]) {
      slow.push(Buffer.from(piece));
      const wait = slow.room();
      if (wait !== null) await wait;
    }
    slow.end();
    // Each chunk is written only once the one before it was: the feeder waited for the stream's word, with no
    // busy wait (turns of the event loop are only for a stream that has not yet said it writes).
    expect(order).toEqual(["write ab", "written", "write cd", "written", "write ef", "written", "write gh"]);

    // A stream that never says: a turn of the event loop each time, never a promise that does not resolve.
    const mute = chunkedWriter(() => undefined, 2, 1);
    for (const piece of ["ab", "cd", "ef", "gh"]) {
      mute.push(Buffer.from(piece));
      await mute.room();
    }
    mute.end();
  });
});
