import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizePattern, patternMatches, patternsOverlap } from "../../src/coordination/reservations.js";

describe("reservation patterns", () => {
  it("a file, a folder, a glob", () => {
    expect(patternMatches("src/billing/", "src/billing/invoice.ts")).toBe(true);
    expect(patternMatches("src/billing", "src/billing/a/b.ts")).toBe(true);
    expect(patternMatches("src/billing", "src/billing.ts")).toBe(false);
    expect(patternMatches("src/billing/", "src/billingx/a.ts")).toBe(false);
    expect(patternMatches("src/auth.ts", "src/auth.ts")).toBe(true);
    expect(patternMatches("src/**/*.sql", "src/a/b/c.sql")).toBe(true);
    expect(patternMatches("src/**/*.sql", "src/c.sql")).toBe(true);
    expect(patternMatches("src/*.sql", "src/a/c.sql")).toBe(false);
    expect(patternMatches("**", "anything/at/all.ts")).toBe(true);
    expect(patternMatches("docs/?.md", "docs/a.md")).toBe(true);
    expect(patternMatches("a+b/(x).ts", "a+b/(x).ts")).toBe(true);
  });

  it("normalises what a model writes, and refuses what leaves the repo", () => {
    expect(normalizePattern("./src//billing/")).toBe("src/billing/");
    expect(normalizePattern("/src\\auth.ts")).toBe("src/auth.ts");
    expect(normalizePattern(".")).toBe("**");
    expect(() => normalizePattern("../x")).toThrow(/leaves the repo/);
    expect(() => normalizePattern("src/../../x")).toThrow(/leaves the repo/);
    expect(() => normalizePattern("  ")).toThrow(/names no file/);
  });

  it("two patterns overlap where one may name a file of the other", () => {
    expect(patternsOverlap("src/", "src/billing/a.ts")).toBe(true);
    expect(patternsOverlap("src/billing/a.ts", "src/")).toBe(true);
    expect(patternsOverlap("src/billing/", "src/auth/")).toBe(false);
    expect(patternsOverlap("src/**/*.sql", "src/db/x.sql")).toBe(true);
    expect(patternsOverlap("docs/", "src/**")).toBe(false);
    expect(patternsOverlap("src", "src/a.ts")).toBe(true);
  });

  it("overlap is never missed where a file matches both (fast-check)", () => {
    const segment = fc.constantFrom("src", "lib", "a", "b", "x.ts", "y.sql");
    const file = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));
    const pattern = fc.oneof(
      file,
      file.map((f) => `${f}/`),
      fc.array(fc.constantFrom("src", "lib", "a", "*", "**", "*.sql"), { minLength: 1, maxLength: 4 }).map((s) => s.join("/")),
    );
    fc.assert(
      fc.property(pattern, pattern, file, (a, b, f) => {
        if (patternMatches(a, f) && patternMatches(b, f)) expect(patternsOverlap(a, b)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
