// Apart from the extractor, so that the caches that key on it load without tree-sitter's code.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * What symbol extraction is made of, relative to the package root: its code (the extraction, the comparison whose
 * results `analyze` keeps, the parsers and their queries, the service contracts' readers and rules), the native parser's C sources with tree-sitter's runtime,
 * and the grammar packages it loads, by version. A change to any of them changes {@link EXTRACTOR_VERSION}, so that
 * no cache serves what an older extraction made; nobody has to remember to bump a number.
 */
export const EXTRACTION_SOURCES = {
  folders: ["src/symbols", "src/parse", "src/contracts", "grammars", "native/tree-sitter"],
  /** Files of `native/` itself (not its subfolders, which hold the hook client). */
  nativeFiles: /\.[ch]$/,
  packages: [
    "graphql",
    "js-yaml",
    "protobufjs",
    "tree-sitter-bash",
    "tree-sitter-go",
    "tree-sitter-java",
    "tree-sitter-javascript",
    "tree-sitter-python",
    "tree-sitter-rust",
    "tree-sitter-typescript",
    "web-tree-sitter",
  ],
} as const;

/** The file `npm run build` writes beside the built module: the fingerprint of the sources it was built from. */
export const FINGERPRINT_FILE = "extraction-fingerprint.json";

/**
 * A fingerprint of the extraction's sources under `root` (16 hex digits of a SHA-256 over each file's POSIX path and
 * content, in path order, and each grammar package's name and version). Files that cannot be read count as absent.
 */
export function computeExtractionFingerprint(root: string): string {
  const hash = createHash("sha256");
  const files: string[] = [];
  const walk = (rel: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) files.push(child);
    }
  };
  for (const folder of EXTRACTION_SOURCES.folders) walk(folder);
  try {
    for (const e of fs.readdirSync(path.join(root, "native"), { withFileTypes: true })) if (e.isFile() && EXTRACTION_SOURCES.nativeFiles.test(e.name)) files.push(`native/${e.name}`);
  } catch {
    // no native sources here
  }
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const f of files) {
    let content: Buffer;
    try {
      content = fs.readFileSync(path.join(root, f));
    } catch {
      continue;
    }
    hash.update(`${f}\0${content.length}\0`).update(content);
  }
  for (const name of EXTRACTION_SOURCES.packages) {
    let version = "absent";
    try {
      const v = (JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as { version?: unknown }).version;
      if (typeof v === "string") version = v;
    } catch {
      // not installed
    }
    hash.update(`package\0${name}\0${version}\0`);
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * The built module's fingerprint (written by the build beside it), else one computed from the sources (tests run
 * the TypeScript sources, where the package root has them).
 */
function extractionFingerprint(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  try {
    const stored = (JSON.parse(fs.readFileSync(path.join(here, FINGERPRINT_FILE), "utf8")) as { fingerprint?: unknown }).fingerprint;
    if (typeof stored === "string" && /^[0-9a-f]{16}$/.test(stored)) return stored;
  } catch {
    // not a build: from the sources
  }
  return computeExtractionFingerprint(path.resolve(here, "..", ".."));
}

/**
 * The version of symbol extraction that cached results are keyed by: a fingerprint of {@link EXTRACTION_SOURCES}.
 * Cached results of another version are not reused.
 */
export const EXTRACTOR_VERSION: string = extractionFingerprint();
