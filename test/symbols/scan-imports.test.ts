import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blankJavaLiterals, goImportUses, javaQualifiedUses, rustUses, scanImports } from "../../src/symbols/scan-imports.js";

describe("javaQualifiedUses: types Java code names in full without importing them", () => {
  it("reads declarations, constructions, static calls and annotations, a nested type by its top-level one; not the JDK's, fields' or what comments and strings say", () => {
    const text = [
      "package com.acme.app;",
      "",
      "import com.acme.util.Strings;",
      "",
      "/** Uses {@link com.acme.docs.Only} in its Javadoc. */",
      "@com.acme.audit.Audited",
      "class Main extends com.acme.base.Service {",
      "  com.acme.store.Store s = new com.acme.store.Store();",
      '  com.acme.store.Store.Entry e = com.acme.store.Stores.open("com.acme.quoted.Name");',
      "  java.util.List<String> xs = new java.util.ArrayList<>();",
      "  int n = this.config.limits.MAX + super.other.Size;",
      '  char c = \'"\'; String t = """',
      "     com.acme.block.Text",
      '     """;',
      "  // com.acme.commented.Out",
      "  Object o = com.acme . spaced\n      .Wrapped.of();",
      "}",
    ].join("\n");
    expect(javaQualifiedUses(text)).toEqual([
      { kind: "import", name: "Audited", module: "com.acme.audit" },
      { kind: "import", name: "Service", module: "com.acme.base" },
      { kind: "import", name: "Wrapped", module: "com.acme.spaced" },
      { kind: "import", name: "Store", module: "com.acme.store" },
      { kind: "import", name: "Stores", module: "com.acme.store" },
      // (an import names its type as `javaUses` reads it too)
      { kind: "import", name: "Strings", module: "com.acme.util" },
    ]);
    // scanImports (what analyze and the hooks read) gives both: the imports and the names in full, once each.
    expect(scanImports(text, "java").map((r) => `${r.module}.${r.name}`)).toEqual([
      "com.acme.audit.Audited",
      "com.acme.base.Service",
      "com.acme.spaced.Wrapped",
      "com.acme.store.Store",
      "com.acme.store.Stores",
      "com.acme.util.Strings",
    ]);
  });

  it("blankJavaLiterals keeps every line and every character of code where it was, whatever the text", () => {
    const piece = fc.constantFrom("a.b.C", "//", "/*", "*/", '"', '"""', "'", "\\", "\n", " ", "x", "com.acme.T", "'\"'", '"\\""');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        const blanked = blankJavaLiterals(text);
        expect(blanked.length).toBe(text.length);
        for (let i = 0; i < text.length; i++) {
          const b = blanked[i];
          // each character is itself or a space, and a line break is always kept
          expect(b === text[i] || b === " ").toBe(true);
          if (text[i] === "\n") expect(b).toBe("\n");
        }
        // what is left names no more than the text did
        for (const r of javaQualifiedUses(text)) expect(text.replace(/\s+/g, "")).toContain(`${r.module}.${r.name}`);
      }),
      { numRuns: 2000 },
    );
    // Hostile text ends: a megabyte of a chain with no type at its end, of unclosed comments, of quotes.
    for (const piece of ["a.", "/*", '"', "'", '"""']) expect(javaQualifiedUses(piece.repeat(500_000))).toEqual([]);
  });
});

describe("goImportUses: a dot import", () => {
  it("reads the capitalised names the code reads unqualified as the package's, not those in comments or strings, nor fields", () => {
    const text = 'package main\n\nimport (\n\t. "example.com/store/db"\n\t"fmt"\n)\n\n// Close is only named here\nfunc main() {\n\tc := Open("Reset")\n\tfmt.Println(c.Name, Version)\n}\n';
    expect(goImportUses(text).filter((r) => r.module === "example.com/store/db")).toEqual([
      { kind: "import", name: "*", module: "example.com/store/db" },
      { kind: "import", name: "Open", module: "example.com/store/db" },
      { kind: "import", name: "Version", module: "example.com/store/db" },
    ]);
  });
});

describe("rustUses: a crate or module under another name", () => {
  it("reads paths through `use .. as` and `extern crate .. as` as the crate's; not through the crate's own paths", () => {
    const text = [
      "extern crate acme_store as st;",
      "use acme_net::client as c;",
      "use acme_log as _;",
      "use super::local as l;",
      "",
      "fn main() {",
      '    let db = st::open("x");',
      "    let k = c::Client::new();",
      "    let m = l::helper();",
      "}",
    ].join("\n");
    expect(rustUses(text)).toEqual([
      { kind: "import", name: "Client", module: "acme_net" },
      { kind: "import", name: "client", module: "acme_net" },
      { kind: "import", name: "open", module: "acme_store" },
    ]);
  });
});
