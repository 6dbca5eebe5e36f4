#!/usr/bin/env node
// Part of `npm run build`, after tsc: the CLI's modules in `dist/` bundled into a few chunks in `dist/cli-bundle/`,
// which `bin/comity.cjs` loads. A hook that runs its event itself is a process started for one event: on a PreToolUse
// it loaded about 60 of Comity's modules and 21 of `diff`'s, each found, read and compiled on its own (see the commit
// that brought this in for what it saved). Chunks are split where the code imports lazily, so a command still loads
// only what it uses. The library (`dist/index.js`) is not bundled: importers get the modules as tsc wrote them.
//
// Every chunk sits in one folder at the same depth as `dist/<folder>/`, so what a module finds from its own URL
// (`../../grammars/`, `../../native/`, `../../bin/`, packages through `createRequire`) is found from a chunk too. The
// worker threads' scripts are entries of their own under the names the code starts them by (beside their caller),
// and the extraction's fingerprint is copied beside the chunks. The CommonJS modules (`*.cjs`, which `bin/comity.cjs`
// also requires before any of this loads) stay where they are, so the process holds one copy of each.
//
// The contract parsers that are many modules each (graphql, protobufjs) are bundled too, each into one CommonJS file
// in `vendor/`, which the CLI's `contracts/parsers.js` requires instead of the package: a hook that meets a `.proto`
// or a GraphQL schema loads them in its own process, and from node_modules that was 46 files for protobufjs (35 ms of
// a cold hook on a slow day, 19 ms as one file) and over a hundred for graphql (65 ms, 36 ms as one). Each is still
// required only where a document of its kind is read.
import * as fs from "node:fs";
import { builtinModules, createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const out = path.join(dist, "cli-bundle");

/** Packages bundled in: pure JavaScript, on the hooks' path, and many files each. Every other package loads from node_modules as it would. */
const BUNDLED_PACKAGES = new Set(["diff"]);

/**
 * The modules a hook that runs its event itself loads before it knows what the event needs (the hook command, its
 * host formats, the config, git's and the remotes' readers): one chunk, read at once, instead of the thirty or so
 * the splitting makes of them otherwise. Only where code is placed: a module named here and imported by a command
 * that is not a hook loads with this chunk, which costs that command a little more to compile and nothing else.
 */
const HOOK_PATH =
  /dist[\\/](hook|config|git|remotes|workspace|fs|errors|async|api|state|briefing|version\.js|coordination[\\/](coordination-text|line-ranges)|contracts[\\/](contract-uses|parsers)|symbols[\\/](code-mask|scan-imports|statement-scan)|cli[\\/]commands[\\/]hook)|node_modules[\\/]diff[\\/]/;

/** The packages required by `dist/contracts/parsers.js` that the CLI loads from `vendor/<name>.cjs` (see above). */
const VENDORED = ["graphql", "protobufjs"];
const PARSERS = path.join(dist, "contracts", "parsers.js");

fs.rmSync(out, { recursive: true, force: true });
/**
 * The CLI, then the worker threads' scripts in a build of their own: a worker shares no module with the thread that
 * starts it, and its chunks hold only what it imports. Built with the CLI's, the parse worker imported the hooks' chunk
 * (for an error class and two functions of the parsers), and with it `node:crypto`, `node:zlib` and
 * `node:child_process`, which each worker compiled while the work waited for it.
 */
const BUILDS = [
  { input: { main: path.join(dist, "cli", "main.js") }, chunks: "[name]-[hash].js", groups: [{ name: "hook-path", test: HOOK_PATH }] },
  {
    input: {
      "parse-worker": path.join(dist, "symbols", "parse-worker.js"),
      "walk-worker": path.join(dist, "snapshot", "walk-worker.js"),
      "http-front-worker": path.join(dist, "daemon", "http-front-worker.js"),
    },
    chunks: "worker-[name]-[hash].js",
    groups: [],
  },
];
for (const { input, chunks, groups } of BUILDS)
  await build({
    input,
    platform: "node",
    // (`sideEffects: false` in package.json is for importers of the library; here a module is kept as imported)
    treeshake: { moduleSideEffects: true },
    external: (id) => {
      if (id.startsWith("node:") || builtinModules.includes(id)) return true;
      if (id.startsWith(".") || path.isAbsolute(id)) return false;
      return !BUNDLED_PACKAGES.has(id.startsWith("@") ? id.split("/").slice(0, 2).join("/") : (id.split("/")[0] ?? id));
    },
    plugins: [
      {
        // The parsers' module requires the vendored files, found from its chunk's URL (every chunk sits in `out`).
        name: "comity-vendored-parsers",
        transform(code, id) {
          if (path.resolve(id) !== PARSERS) return null;
          let text = code;
          for (const name of VENDORED) {
            const call = `require("${name}")`;
            if (!text.includes(call)) throw new Error(`${PARSERS} no longer has ${call}: update VENDORED in scripts/bundle-cli.mjs`);
            text = text.replace(call, `require("./vendor/${name}.cjs")`);
          }
          return text;
        },
      },
      {
        // A `.cjs` module of dist/ imported by a relative path: kept external, at its place in dist/ (see above).
        name: "comity-cjs-in-place",
        resolveId(source, importer) {
          if (importer === undefined || !source.startsWith(".") || !source.endsWith(".cjs")) return null;
          const rel = path
            .relative(out, path.resolve(path.dirname(importer), source))
            .split(path.sep)
            .join("/");
          return { id: rel.startsWith(".") ? rel : `./${rel}`, external: true };
        },
      },
    ],
    output: {
      dir: out,
      format: "esm",
      entryFileNames: "[name].js",
      chunkFileNames: chunks,
      codeSplitting: { groups },
    },
    logLevel: "silent",
  });
const requireFromDist = createRequire(PARSERS);
for (const name of VENDORED)
  await build({
    input: requireFromDist.resolve(name),
    platform: "node",
    output: { file: path.join(out, "vendor", `${name}.cjs`), format: "cjs" },
    logLevel: "silent",
  });
const FINGERPRINT_FILE = "extraction-fingerprint.json";
fs.copyFileSync(path.join(dist, "symbols", FINGERPRINT_FILE), path.join(out, FINGERPRINT_FILE));
