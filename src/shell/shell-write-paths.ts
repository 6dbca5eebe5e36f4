import * as path from "node:path";
import type { SyntaxNode } from "../parse/syntax.js";
import { commandWrites, patchTargets } from "./command-writes.js";
import type { ShellParser } from "./load-shell-parser.js";

/** The files a shell command visibly writes. */
export interface ShellWritePaths {
  /** Absolute, sorted, de-duplicated; at most `maxPaths`. */
  readonly paths: readonly string[];
  /** Targets that could not be resolved: an unexpanded variable, a glob, a `cd` to an unknown folder. */
  readonly unresolved: number;
  /** True when more than `maxPaths` paths were found. */
  readonly truncated: boolean;
  /** True when the command did not fully parse: what could be read is still reported. */
  readonly parseError: boolean;
}

export interface ShellWritePathsOptions {
  /** The folder the command runs in (absolute). */
  readonly cwd: string;
  /** Expands a leading `~`; unresolved without it. */
  readonly homeDir?: string;
  readonly maxPaths?: number;
  /** Whether an absolute path is a folder (a `cp`/`mv` destination); without it, only a trailing `/` says so. */
  readonly isDirectory?: (abs: string) => boolean;
  /** Reads a patch file (`git apply P`, `patch -i P`, `patch < P`) to learn the files it writes; without it, they are unknown. */
  readonly readFile?: (abs: string) => string | null;
}

/** Commands that run another command given as their arguments. */
const WRAPPERS = new Set(["sudo", "doas", "command", "nohup", "time", "nice", "stdbuf", "env", "exec"]);
/** Options of wrappers that take a value in the next word. */
const WRAPPER_VALUE_OPTIONS = new Set(["-u", "-g", "-C", "-n", "-o", "-i", "-e", "-U", "-h", "-p", "-D"]);
/** Redirection operators that write (create or truncate or append) their target. */
const WRITE_OPERATORS = new Set([">", ">>", "&>", "&>>", ">|", ">&", "<>"]);

interface State {
  /** Where relative paths resolve; null after a `cd` to somewhere unknown. */
  cwd: string | null;
}

/**
 * Collects the paths a shell command visibly writes: targets of `>`, `>>`,
 * `>|`, `&>`, `&>>`, `2>` and `>&` to a file, and the file arguments of
 * `tee` (also behind `sudo` and the like), through pipelines, subshells,
 * `&&`/`||`/`;` lists, command substitutions and heredocs. A `cd DIR` earlier
 * in the same shell moves the folder later relative paths resolve in (a `cd`
 * in a subshell or a pipeline stage stays there). `/dev/*` targets, file
 * descriptors and targets holding an unexpanded variable are left out (the
 * last counted as unresolved). Never throws.
 *
 * @example
 * shellWritePaths(parser, "cd sub && make > build.log 2>&1", { cwd: "/repo" }).paths; // ["/repo/sub/build.log"]
 */
export function shellWritePaths(parser: ShellParser, command: string, options: ShellWritePathsOptions): ShellWritePaths {
  const found = new Set<string>();
  let unresolved = 0;
  let parseError = false;
  const home = options.homeDir;

  const literal = (node: SyntaxNode): string | null => literalText(node, home);
  const target = (node: SyntaxNode, state: State): void => {
    const text = literal(node);
    if (text === null || text === "") {
      unresolved++;
      return;
    }
    if (text === "-" || text.startsWith("/dev/") || text.startsWith("/proc/self/fd/")) return;
    if (!path.isAbsolute(text) && state.cwd === null) {
      unresolved++;
      return;
    }
    found.add(path.resolve(state.cwd ?? "/", text));
  };

  const simpleCommand = (node: SyntaxNode, state: State, stdinFile: string | null = null): void => {
    const words = node.namedChildren.filter((c) => c.type !== "variable_assignment" && !c.type.endsWith("_redirect"));
    let i = 0;
    let name = words[0] === undefined ? null : literal(words[0].type === "command_name" ? (words[0].firstNamedChild ?? words[0]) : words[0]);
    // `sudo -u x tee f`, `env A=1 tee f`: look through the wrapper to the command it runs.
    while (name !== null && WRAPPERS.has(path.basename(name))) {
      i++;
      while (i < words.length) {
        const w = literal(words[i] as SyntaxNode);
        if (w?.startsWith("-")) i += WRAPPER_VALUE_OPTIONS.has(w) ? 2 : 1;
        else if (w !== null && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++;
        else break;
      }
      name = i < words.length ? literal(words[i] as SyntaxNode) : null;
    }
    const args = words.slice(i + 1);
    const base = name === null ? null : path.basename(name);
    if (base === "tee") {
      let options = true;
      for (const a of args) {
        const t = literal(a);
        if (options && t === "--") {
          options = false;
          continue;
        }
        if (options && t?.startsWith("-") && t !== "-") continue;
        target(a, state);
      }
    } else if (base === "cd" || base === "pushd") {
      const dest = args.map((a) => literal(a)).find((t) => t === null || !t.startsWith("-") || t === "-");
      if (dest === undefined) state.cwd = home ?? null;
      else if (dest === null || dest === "-") state.cwd = null;
      else state.cwd = path.isAbsolute(dest) ? path.normalize(dest) : state.cwd === null ? null : path.resolve(state.cwd, dest);
    } else if (base === "popd") {
      state.cwd = null;
    } else if (name !== null) {
      // In-place writers: sed -i, mv, cp, rm, git checkout -- f, prettier --write, …
      const lits = args.map((a) => literal(a));
      const here = state.cwd;
      const w = commandWrites(name, lits, (o) => here !== null && (o.endsWith("/") || (options.isDirectory?.(path.resolve(here, o)) ?? false)));
      const cwd = w.chdir === null ? here : here === null ? null : path.resolve(here, w.chdir);
      unresolved += w.unresolved;
      const add = (t: string): void => {
        if (t.startsWith("/dev/")) return;
        if (!path.isAbsolute(t) && cwd === null) unresolved++;
        else found.add(path.resolve(cwd ?? "/", t));
      };
      for (const t of w.targets) add(t);
      const patches = [...w.patchFiles, ...(w.patchFiles.length === 0 && stdinFile !== null && (base === "patch" || base === "git") ? [stdinFile] : [])];
      for (const pf of patches) {
        const text = cwd === null && !path.isAbsolute(pf) ? null : (options.readFile?.(path.resolve(cwd ?? "/", pf)) ?? null);
        if (text === null) unresolved++;
        else for (const t of patchTargets(text, w.strip)) add(t);
      }
    }
    // Arguments and redirects may hold command substitutions: they run in subshells.
    for (const c of node.namedChildren) visit(c, { ...state });
  };

  const redirect = (node: SyntaxNode, state: State): void => {
    const op = node.children.find((c) => !c.isNamed && /[<>]/.test(c.type))?.type;
    if (op === undefined || !WRITE_OPERATORS.has(op)) return;
    const dest = node.childrenForFieldName("destination")[0] ?? node.namedChildren.find((c) => c.type !== "file_descriptor");
    if (dest === undefined) return;
    // `2>&1`, `>&2`: a file descriptor, not a file.
    if (op === ">&" && (dest.type === "number" || /^\d+-?$|^-$/.test(dest.text))) return;
    target(dest, state);
  };

  const visit = (node: SyntaxNode, state: State): void => {
    if (node.type === "ERROR" || node.isMissing) parseError = true;
    switch (node.type) {
      case "command":
        simpleCommand(node, state);
        return;
      case "file_redirect":
        redirect(node, state);
        return;
      case "redirected_statement": {
        // The body first: `cd sub && make > log` writes sub/log; `patch -p1 < fix.diff` writes what fix.diff names.
        const body = node.childForFieldName("body");
        const input = node.namedChildren.find((c) => c.type === "file_redirect" && c.children.some((x) => !x.isNamed && x.type === "<"));
        const inputDest = input === undefined ? undefined : (input.childrenForFieldName("destination")[0] ?? input.namedChildren.find((x) => x.type !== "file_descriptor"));
        if (body !== null && body.type === "command") simpleCommand(body, state, inputDest === undefined ? null : literal(inputDest));
        else if (body !== null) visit(body, state);
        for (const c of node.namedChildren) if (c !== body && c.id !== body?.id) visit(c, state);
        return;
      }
      case "subshell":
      case "command_substitution":
      case "process_substitution":
      case "function_definition":
        for (const c of node.namedChildren) visit(c, { ...state });
        return;
      case "pipeline":
        // Each stage runs in its own subshell: a `cd` there does not leak.
        for (const c of node.namedChildren) visit(c, { ...state });
        return;
      default:
        for (const c of node.namedChildren) visit(c, state);
    }
  };

  try {
    const tree = parser.parse(command);
    if (tree.rootNode.hasError) parseError = true;
    visit(tree.rootNode, { cwd: options.cwd });
  } catch {
    parseError = true;
  }
  const max = options.maxPaths ?? 500;
  const sorted = [...found].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { paths: sorted.slice(0, max), unresolved, truncated: sorted.length > max, parseError };
}

/**
 * The text a word stands for after quote removal, or null when it depends on
 * the shell's state (variables, command output, globs, `~` without a home).
 */
export function literalText(node: SyntaxNode, home?: string): string | null {
  switch (node.type) {
    case "word":
    case "number": {
      const raw = node.text;
      if (/(^|[^\\])[*?[]/.test(raw)) return null; // a glob
      let text = raw.replace(/\\(.)/gs, "$1").replace(/\\$/, "");
      if (text === "~" || text.startsWith("~/")) {
        if (home === undefined) return null;
        text = home + text.slice(1);
      } else if (text.startsWith("~")) {
        return null; // ~user
      }
      return text;
    }
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      let out = "";
      for (const c of node.namedChildren) {
        if (c.type !== "string_content") return null;
        out += c.text.replace(/\\([$`"\\\n])/g, (_m, ch: string) => (ch === "\n" ? "" : ch));
      }
      return out;
    }
    case "concatenation": {
      let out = "";
      for (const c of node.namedChildren) {
        const part = literalText(c, home);
        if (part === null) return null;
        out += part;
      }
      return out;
    }
    default:
      return null;
  }
}
