import { describe, expect, it } from "vitest";
import { createAnalyzeCache } from "../../src/daemon/analyze-cache.js";
import { createWatchedRoots, type ChangeWatch } from "../../src/daemon/watched-roots.js";
import type { AnalyzeAnswer, AnalyzeToken } from "../../src/daemon/daemon-wire.js";

/** A watch the test drives: roots added, and the changes it says next. */
function fakeWatch(): ChangeWatch & { roots: string[]; touch(root: string): void; overflow(): void } {
  const roots: string[] = [];
  let pending = new Set<number>();
  let lost = false;
  return {
    roots,
    add: (root) => roots.push(root) - 1,
    changed: () => {
      if (lost) return null;
      const out = [...pending].sort();
      pending = new Set();
      return out;
    },
    touch: (root) => pending.add(roots.indexOf(root)),
    overflow: () => {
      lost = true;
    },
  };
}

const tokenOf = (a: AnalyzeAnswer): AnalyzeToken | null => (a.kind === "analyze-miss" ? a.token : null);

describe("the daemon's analyze answers (pure, on a watch the test drives)", () => {
  it("keeps an answer from the second cold run on (its roots watched before it began), and gives it until a root changes", () => {
    const watch = fakeWatch();
    const cache = createAnalyzeCache({ roots: createWatchedRoots(() => watch) });
    const ask = () => cache.query({ kind: "analyze", build: "b", key: "k" });
    const store = (token: AnalyzeToken | null, stdout: string) => cache.store({ kind: "analyze-store", build: "b", key: "k", token, stdout, code: 0, roots: ["/w", "/w/.git", "/elsewhere/.git"] });
    // First run: nothing watched yet; its roots are watched from now on, its answer is not kept.
    expect(store(tokenOf(ask()), "one")).toEqual({ kind: "stored", stored: false });
    expect(watch.roots).toEqual(["/elsewhere/.git", "/w"]); // /w/.git lies in /w
    // Second run: kept. Third: answered from memory.
    expect(store(tokenOf(ask()), "two")).toEqual({ kind: "stored", stored: true });
    expect(ask()).toEqual({ kind: "analyze", stdout: "two", code: 0 });
    // A change in any root it read: a miss; a change elsewhere: still warm.
    watch.touch("/elsewhere/.git");
    expect(ask().kind).toBe("analyze-miss");
    expect(store(tokenOf(ask()), "three")).toEqual({ kind: "stored", stored: true });
    const other = cache.query({ kind: "analyze", build: "b", key: "other" });
    cache.store({ kind: "analyze-store", build: "b", key: "other", token: tokenOf(other), stdout: "x", code: 0, roots: ["/elsewhere/.git"] });
    watch.touch("/w");
    expect(ask().kind).toBe("analyze-miss");
    expect(cache.stats()).toMatchObject({ hits: 1, roots: 2 });
  });

  it("does not keep an answer whose roots changed while it was made, nor one made without a token", () => {
    const watch = fakeWatch();
    const cache = createAnalyzeCache({ roots: createWatchedRoots(() => watch) });
    const call = (token: AnalyzeToken | null) => ({ kind: "analyze-store" as const, build: "b", key: "k", token, stdout: "s", code: 0, roots: ["/w"] });
    cache.store(call(tokenOf(cache.query({ kind: "analyze", build: "b", key: "k" }))));
    const token = tokenOf(cache.query({ kind: "analyze", build: "b", key: "k" }));
    watch.touch("/w"); // during the cold run
    expect(cache.store(call(token))).toEqual({ kind: "stored", stored: false });
    expect(cache.store(call(null))).toEqual({ kind: "stored", stored: false });
    expect(cache.query({ kind: "analyze", build: "b", key: "k" }).kind).toBe("analyze-miss");
  });

  it("lost events drop every answer and start a new watch; no watch at all keeps nothing", () => {
    const watches = [fakeWatch(), fakeWatch()];
    let opened = 0;
    const cache = createAnalyzeCache({ roots: createWatchedRoots(() => watches[opened++] ?? null) });
    const round = (stdout: string) =>
      cache.store({ kind: "analyze-store", build: "b", key: "k", token: tokenOf(cache.query({ kind: "analyze", build: "b", key: "k" })), stdout, code: 0, roots: ["/w"] });
    round("a");
    round("b");
    expect(cache.query({ kind: "analyze", build: "b", key: "k" }).kind).toBe("analyze");
    watches[0]?.overflow();
    expect(cache.query({ kind: "analyze", build: "b", key: "k" })).toEqual({ kind: "analyze-miss", token: null });
    expect(cache.stats()).toMatchObject({ entries: 0, roots: 0, problem: expect.stringContaining("overflowed") });
    expect(cache.query({ kind: "analyze", build: "b", key: "k" })).toEqual({ kind: "analyze-miss", token: {} }); // the second watch
    const none = createAnalyzeCache({ roots: createWatchedRoots(() => null) });
    expect(none.query({ kind: "analyze", build: "b", key: "k" })).toEqual({ kind: "analyze-miss", token: null });
    expect(none.stats().problem).toContain("no change watch");
  });

  it("keeps at most its count and bytes of answers, the least recently used going first", () => {
    const watch = fakeWatch();
    const cache = createAnalyzeCache({ roots: createWatchedRoots(() => watch), maxEntries: 2, maxBytes: 10 });
    const put = (key: string, stdout: string) => {
      for (let i = 0; i < 2; i++) cache.store({ kind: "analyze-store", build: "b", key, token: tokenOf(cache.query({ kind: "analyze", build: "b", key })), stdout, code: 0, roots: ["/w"] });
    };
    put("a", "aaaa");
    put("b", "bbbb");
    expect(cache.query({ kind: "analyze", build: "b", key: "a" }).kind).toBe("analyze"); // a is now the most recent
    put("c", "cccc");
    expect(cache.stats().entries).toBe(2);
    expect(cache.query({ kind: "analyze", build: "b", key: "b" }).kind).toBe("analyze-miss");
    put("d", "d".repeat(11)); // over the bytes alone: never kept
    expect(cache.query({ kind: "analyze", build: "b", key: "d" }).kind).toBe("analyze-miss");
  });
});
