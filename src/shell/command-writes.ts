import * as path from "node:path";

/** What a command's arguments say it writes: file operands as written (relative to the command's folder), and how many could not be read. */
export interface CommandWrites {
  readonly targets: readonly string[];
  /** Operands that are not literal (a variable, a glob): the command may write something unknown. */
  readonly unresolved: number;
  /** A patch file whose `+++`/`diff --git` headers name what it writes (read by the caller, relative to the folder). */
  readonly patchFiles: readonly string[];
  /** The leading path components the patch's headers carry (`-pN`). */
  readonly strip: number;
  /** For `git -C DIR`: the folder the command works in, relative to the shell's. */
  readonly chdir: string | null;
}

const NONE: CommandWrites = { targets: [], unresolved: 0, patchFiles: [], strip: 1, chdir: null };

/** `-p1`, `-p 1`, `--strip=1`, else the tool's default. */
function stripOf(args: ReadonlyArray<string | null>, fallback: number): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const m = a == null ? null : /^(?:-p|--strip=)(\d+)$/.exec(a);
    if (m !== null) return Number(m[1]);
    if (a === "-p" && typeof args[i + 1] === "string" && /^\d+$/.test(args[i + 1] as string)) return Number(args[i + 1]);
  }
  return fallback;
}

/** Commands that run the command given as their arguments (package runners). */
const RUNNERS = new Set(["npx", "bunx", "pnpx"]);

/**
 * The files an in-place writer changes, from its arguments (`null` for a word
 * that is not literal): `sed -i`, `perl -i`, `mv`, `cp`, `rm`, `touch`,
 * `truncate`, `ln`, `install`, `dd of=`, `patch`, `git apply`, `git checkout
 * -- PATH`, `git restore`, `git mv`, `git rm`, `npm version`, and formatters
 * that write named files (`prettier --write`/`-w`, `eslint --fix`, `black`,
 * `ruff format`, `ruff check --fix`, `gofmt -w`), also behind `npx` and
 * `pnpm exec`/`yarn`. A folder operand (`prettier --write src`) names the
 * folder. `isDirectory` tells a `cp`/`mv` destination folder, where the files
 * land under their own names. Pure apart from `isDirectory`.
 */
export function commandWrites(name: string, args: ReadonlyArray<string | null>, isDirectory: (operand: string) => boolean = (o) => o.endsWith("/")): CommandWrites {
  let cmd = path.basename(name);
  let rest = [...args];
  // npx prettier …, pnpm exec prettier …, yarn prettier …
  if (RUNNERS.has(cmd) || ((cmd === "pnpm" || cmd === "yarn" || cmd === "bun") && rest[0] !== undefined)) {
    if ((cmd === "pnpm" || cmd === "bun") && (rest[0] === "exec" || rest[0] === "x" || rest[0] === "dlx")) rest = rest.slice(1);
    while (rest[0]?.startsWith("-")) rest = rest.slice(1);
    if (rest[0] === undefined || rest[0] === null) return NONE;
    cmd = path.basename(rest[0]);
    rest = rest.slice(1);
  }
  const operands = (list: ReadonlyArray<string | null>, valued: ReadonlySet<string> = new Set()): Array<string | null> => {
    const out: Array<string | null> = [];
    let options = true;
    for (let i = 0; i < list.length; i++) {
      const a = list[i] as string | null;
      if (options && a === "--") {
        options = false;
        continue;
      }
      if (options && a?.startsWith("-") && a !== "-") {
        if (valued.has(a)) i++;
        continue;
      }
      out.push(a);
    }
    return out;
  };
  const result = (targets: ReadonlyArray<string | null>, extra: Partial<CommandWrites> = {}): CommandWrites => ({
    targets: targets.filter((t): t is string => t !== null && t !== "" && t !== "-"),
    unresolved: targets.filter((t) => t === null).length,
    patchFiles: extra.patchFiles ?? [],
    strip: extra.strip ?? 1,
    chdir: extra.chdir ?? null,
  });
  const intoFolder = (sources: ReadonlyArray<string | null>, dest: string | null): Array<string | null> =>
    dest !== null && isDirectory(dest) ? sources.map((s) => (s === null ? null : path.posix.join(dest, path.posix.basename(s)))) : [dest];

  switch (cmd) {
    case "sed": {
      if (!rest.some((a) => a !== null && (/^-[a-zA-Z]*i/.test(a) || a.startsWith("--in-place")))) return NONE;
      const scripted = rest.some((a) => a === "-e" || a === "-f" || a === "--expression" || a === "--file");
      const ops = operands(rest, new Set(["-e", "-f", "--expression", "--file", "-l"]));
      return result(scripted ? ops : ops.slice(1));
    }
    case "perl": {
      if (!rest.some((a) => a !== null && /^-[a-zA-Z]*i/.test(a))) return NONE;
      const scripted = rest.some((a) => a !== null && /^-[a-zA-Z]*[eE]$/.test(a));
      const ops: Array<string | null> = [];
      for (let i = 0; i < rest.length; i++) {
        const a = rest[i] as string | null;
        if (a?.startsWith("-")) {
          if (/^-[a-zA-Z]*[eE]$/.test(a)) i++;
          continue;
        }
        ops.push(a);
      }
      return result(scripted ? ops : ops.slice(1));
    }
    case "rm":
    case "unlink":
    case "shred":
      return result(operands(rest, new Set(["-n", "-s", "--iterations", "--size"])));
    case "touch":
      return result(operands(rest, new Set(["-r", "-d", "-t", "--reference", "--date"])));
    case "truncate":
      return result(operands(rest, new Set(["-s", "-r", "--size", "--reference"])));
    case "mv":
    case "cp":
    case "install":
    case "ln": {
      const target = rest.findIndex((a) => a === "-t" || a === "--target-directory");
      const ops = operands(rest, new Set(["-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"]));
      if (target >= 0) {
        const dir = rest[target + 1] ?? null;
        return result([...(cmd === "mv" ? ops : []), ...ops.map((s) => (s === null || dir === null ? null : path.posix.join(dir, path.posix.basename(s))))]);
      }
      if (cmd === "ln" && ops.length === 1) return result([ops[0] === null ? null : path.posix.basename(ops[0] as string)]);
      if (ops.length < 2) return NONE;
      const sources = ops.slice(0, -1);
      const dest = ops[ops.length - 1] ?? null;
      return result([...(cmd === "mv" ? sources : []), ...intoFolder(sources, dest)]);
    }
    case "dd":
      return result(rest.filter((a) => a === null || a.startsWith("of=")).map((a) => (a === null ? null : a.slice(3))));
    case "patch": {
      const input = rest.findIndex((a) => a === "-i" || a === "--input");
      const ops = operands(rest, new Set(["-i", "--input", "-p", "-d", "-o", "-r", "-B", "-D", "-F", "-V", "-z", "-Y"]));
      const patchFiles = input >= 0 && typeof rest[input + 1] === "string" ? [rest[input + 1] as string] : ops.length >= 2 && ops[1] !== null ? [ops[1] as string] : [];
      return result(ops.slice(0, 1), { patchFiles, strip: stripOf(rest, 0) });
    }
    case "git":
      return gitWrites(rest, operands, result);
    case "npm":
    case "pnpm":
    case "yarn":
      return rest[0] === "version" ? result(["package.json", "package-lock.json"]) : NONE;
    case "prettier":
      return rest.some((a) => a === "--write" || a === "-w") ? result(operands(rest, new Set(["--config", "--ignore-path", "--plugin", "--parser", "--log-level", "--cache-location"]))) : NONE;
    case "eslint":
      return rest.some((a) => a === "--fix") ? result(operands(rest, new Set(["-c", "--config", "--ext", "--rule", "--format", "-f", "-o", "--output-file", "--ignore-path", "--parser"]))) : NONE;
    case "black":
      return rest.some((a) => a === "--check" || a === "--diff") ? NONE : result(operands(rest, new Set(["-l", "--line-length", "-t", "--target-version", "--config", "--include", "--exclude"])));
    case "ruff": {
      const sub = rest[0];
      const tail = rest.slice(1);
      const write = (sub === "format" && !tail.some((a) => a === "--check" || a === "--diff")) || (sub === "check" && tail.some((a) => a === "--fix"));
      return write ? result(operands(tail, new Set(["--config", "--select", "--ignore", "--line-length", "--target-version"]))) : NONE;
    }
    case "gofmt":
    case "goimports":
      return rest.some((a) => a === "-w") ? result(operands(rest, new Set(["-r"]))) : NONE;
    default:
      return NONE;
  }
}

function gitWrites(
  args: ReadonlyArray<string | null>,
  operands: (list: ReadonlyArray<string | null>, valued?: ReadonlySet<string>) => Array<string | null>,
  result: (targets: ReadonlyArray<string | null>, extra?: Partial<CommandWrites>) => CommandWrites,
): CommandWrites {
  let i = 0;
  let chdir: string | null = null;
  // git -C DIR -c k=v --no-pager SUB …
  while (i < args.length) {
    const a = args[i] ?? null;
    if (a === "-C") {
      chdir = args[i + 1] ?? null;
      i += 2;
    } else if (a === "-c" || a === "--git-dir" || a === "--work-tree") i += 2;
    else if (a?.startsWith("-")) i++;
    else break;
  }
  const sub = args[i] ?? null;
  const rest = args.slice(i + 1);
  const extra = { chdir };
  switch (sub) {
    case "apply":
    case "am": {
      if (rest.some((a) => a === "--check" || a === "--stat" || a === "--numstat" || a === "--summary" || a === "--cached")) return { ...result([], extra) };
      const files = operands(rest, new Set(["-p", "--directory", "--exclude", "--include", "-C"])).filter((f): f is string => f !== null);
      return result([], { ...extra, patchFiles: files, strip: stripOf(rest, 1) });
    }
    case "checkout": {
      const dash = rest.indexOf("--");
      return dash >= 0 ? result(rest.slice(dash + 1), extra) : result([], extra);
    }
    case "restore": {
      if (rest.some((a) => a === "--staged" || a === "-S") && !rest.some((a) => a === "--worktree" || a === "-W")) return result([], extra);
      return result(operands(rest, new Set(["-s", "--source"])), extra);
    }
    case "mv": {
      const ops = operands(rest);
      return result(ops, extra);
    }
    case "rm":
      return rest.some((a) => a === "--cached") ? result([], extra) : result(operands(rest), extra);
    default:
      return result([], extra);
  }
}

/** The files a unified diff or git patch writes: its `+++ b/PATH` and `diff --git a/X b/Y` headers, with `-pN` prefixes taken off. */
export function patchTargets(text: string, strip: number): string[] {
  const out = new Set<string>();
  const cut = (p: string): string => p.split("/").slice(strip).join("/");
  for (const m of text.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
    out.add(m[1] as string);
    out.add(m[2] as string);
  }
  for (const m of text.matchAll(/^(?:\+\+\+|---) (\S+)/gm)) {
    const p = m[1] as string;
    if (p === "/dev/null") continue;
    const c = cut(p);
    if (c !== "") out.add(c);
  }
  return [...out].sort();
}
