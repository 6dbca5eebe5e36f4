import * as path from "node:path";

/**
 * A remote URL reduced to the form every spelling of it shares: `hosted` is
 * lowercase `host/owner.../name`; `local` is `file://` plus an absolute POSIX
 * path, so it can never equal a hosted form.
 */
export interface CanonicalRemote {
  readonly kind: "hosted" | "local";
  readonly canonical: string;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: "80", https: "443", git: "9418", ssh: "22" };

/** Hosts that serve the same repos under another name (SSH over 443 and the like). */
const HOST_ALIASES: Readonly<Record<string, string>> = {
  "ssh.github.com": "github.com",
  "altssh.gitlab.com": "gitlab.com",
  "altssh.bitbucket.org": "bitbucket.org",
  "ssh.dev.azure.com": "dev.azure.com",
  "vs-ssh.visualstudio.com": "dev.azure.com",
};

/**
 * Canonicalises a git remote URL so that every spelling of one remote gives
 * one string: scheme, user, password, default ports, `www.`, a trailing
 * `.git` and slashes are dropped; scp-like `git@host:owner/name`, `ssh://`,
 * `git://`, `git+ssh://`, `https://` all agree; the owner keeps every
 * namespace segment (GitLab subgroups); Azure DevOps' https, ssh and legacy
 * `visualstudio.com` spellings all map to `dev.azure.com/org/project/repo`.
 * A port is kept only on http(s) and git:// when it is not the default (an
 * SSH port says how to reach a server, not which repo it is).
 *
 * Local paths and `file://` URLs become `file:///abs/path`; a relative one is
 * resolved against `baseDir` when given. Returns null for an empty or
 * unparseable URL. Pure.
 *
 * @example
 * canonicalizeRemoteUrl("git@GitHub.com:Acme/API.git")?.canonical; // 'github.com/acme/api'
 */
export function canonicalizeRemoteUrl(url: string, baseDir?: string): CanonicalRemote | null {
  const s = url.trim();
  if (s === "" || /[\0\n]/.test(s)) return null;

  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s.exec(s);
  if (scheme !== null) {
    const name = (scheme[1] ?? "").toLowerCase();
    const rest = scheme[2] ?? "";
    if (name === "file") return local(fileUrlPath(rest), baseDir);
    return hosted(transport(name), rest);
  }
  if (isLocalPath(s)) return local(s, baseDir);
  // scp-like: a colon before any slash (git's rule), `[user@]host:path`.
  const scp = /^(?:([^/]*)@)?(\[[^\]/]+\]|[^:/@]+):(.*)$/s.exec(s);
  if (scp !== null) return hosted("ssh", `${scp[1] === undefined ? "" : `${scp[1]}@`}${scp[2] ?? ""}/${scp[3] ?? ""}`);
  return local(s, baseDir);
}

function transport(scheme: string): string {
  const parts = scheme.split("+").filter((p) => p !== "git");
  return parts.length === 0 ? "git" : parts.join("+");
}

function isLocalPath(s: string): boolean {
  return s.startsWith("/") || s.startsWith("./") || s.startsWith("../") || s === "." || s === ".." || s.startsWith("~") || s.startsWith("\\\\") || /^[A-Za-z]:[\\/]/.test(s);
}

function fileUrlPath(rest: string): string {
  // file:///abs, file://localhost/abs, file://C:/x
  const slash = rest.indexOf("/");
  const host = slash < 0 ? rest : rest.slice(0, slash);
  const p = slash < 0 ? "/" : rest.slice(slash);
  const decoded = safeDecode(p);
  return host === "" || host.toLowerCase() === "localhost" ? decoded : `//${host}${decoded}`;
}

function local(p: string, baseDir: string | undefined): CanonicalRemote {
  let posix = p.replace(/\\/g, "/");
  if (/^[A-Za-z]:\//.test(posix)) posix = `/${posix[0]?.toLowerCase()}${posix.slice(1)}`;
  const isRelative = !posix.startsWith("/") && !posix.startsWith("~");
  if (isRelative && baseDir !== undefined) posix = path.posix.resolve(baseDir.replace(/\\/g, "/"), posix);
  posix = path.posix.normalize(posix).replace(/\/+$/, "");
  // git tries `p/.git`, `p.git` and `p` for a local remote: they name one repo.
  posix = posix.replace(/\/\.git$/, "").replace(/\.git$/, "");
  return { kind: "local", canonical: `file://${posix === "" ? "/" : posix}` };
}

function hosted(scheme: string, rest: string): CanonicalRemote | null {
  const noFragment = rest.replace(/[?#].*$/s, "");
  const slash = noFragment.indexOf("/");
  const authority = slash < 0 ? noFragment : noFragment.slice(0, slash);
  let rawPath = slash < 0 ? "" : noFragment.slice(slash + 1);
  const at = authority.lastIndexOf("@");
  const user = at < 0 ? "" : authority.slice(0, at);
  let hostPort = at < 0 ? authority : authority.slice(at + 1);
  // `git+ssh://git@host:owner/name`: an scp-style colon inside a URL (npm writes these).
  const scpInUrl = /^(\[[^\]]+\]|[^:[]*):(.*[^\d].*)$/s.exec(hostPort);
  if (scpInUrl !== null) {
    hostPort = scpInUrl[1] ?? "";
    rawPath = `${scpInUrl[2] ?? ""}/${rawPath}`;
  }
  const hp = /^(\[[^\]]+\]|[^:]*)(?::(\d*))?$/.exec(hostPort);
  if (hp === null) return null;
  let host = safeDecode(hp[1] ?? "")
    .toLowerCase()
    .replace(/\.$/, "");
  if (host === "" || /[\s/\\]/.test(host)) return null;
  if (host.startsWith("www.")) host = host.slice(4);
  const port = hp[2] ?? "";
  const sshLike = scheme === "ssh" || scheme.includes("ssh");
  const keepPort = port !== "" && !sshLike && DEFAULT_PORTS[scheme] !== port;

  let segments = rawPath
    .split("/")
    .map((seg) => safeDecode(seg).trim().toLowerCase())
    .filter((seg) => seg !== "" && seg !== ".");
  const last = segments.length - 1;
  if (last >= 0) segments[last] = (segments[last] ?? "").replace(/\.git$/, "");
  segments = segments.filter((seg) => seg !== "");

  const azure = azureDevOps(host, user, segments);
  if (azure !== null) return { kind: "hosted", canonical: azure };
  host = HOST_ALIASES[host] ?? host;
  // Bitbucket Server serves `https://host/scm/PROJECT/repo` and `ssh://host:7999/PROJECT/repo`.
  if (segments.length === 3 && segments[0] === "scm") segments = segments.slice(1);
  if (segments.length === 0) return null;
  return { kind: "hosted", canonical: [keepPort ? `${host}:${port}` : host, ...segments].join("/") };
}

/** `dev.azure.com/org/project/repo` from any Azure DevOps spelling, else null. */
function azureDevOps(host: string, user: string, segs: readonly string[]): string | null {
  const strip = (s: readonly string[]): string[] => s.filter((x) => x !== "_optimized" && x !== "_full");
  if (host === "dev.azure.com") {
    // org/project/_git/repo, or org/_git/repo when the repo is named after its project.
    const g = segs.indexOf("_git");
    if (g === 2) return azure(segs[0], segs[1], strip(segs.slice(3)));
    if (g === 1) return azure(segs[0], segs[2], strip(segs.slice(2)));
    return null;
  }
  if (host === "ssh.dev.azure.com" || host === "vs-ssh.visualstudio.com") {
    // v3/org/project/repo
    if (segs[0] === "v3") return segs.length === 4 ? azure(segs[1], segs[2], segs.slice(3)) : null;
    // Legacy `org@vs-ssh.visualstudio.com:22/[DefaultCollection/]project/_ssh/repo`.
    return host === "vs-ssh.visualstudio.com" ? legacyAzure(user.toLowerCase(), segs) : null;
  }
  const legacy = /^([a-z0-9-]+)\.visualstudio\.com$/.exec(host);
  return legacy === null ? null : legacyAzure(legacy[1] ?? "", segs);
}

/** `[DefaultCollection/]project/_git/repo`, or `_git/repo` for the project's own repo. */
function legacyAzure(org: string, segs: readonly string[]): string | null {
  const rest = segs[0] === "defaultcollection" ? segs.slice(1) : segs;
  const g = rest.findIndex((x) => x === "_git" || x === "_ssh");
  const repo = rest.slice(g + 1).filter((x) => x !== "_optimized" && x !== "_full");
  if (g === 1) return azure(org, rest[0], repo);
  if (g === 0) return azure(org, rest[1], repo);
  return null;
}

function azure(org: string | undefined, project: string | undefined, repo: readonly string[]): string | null {
  if (org === undefined || project === undefined || repo.length !== 1 || org === "") return null;
  return `dev.azure.com/${org}/${project}/${repo[0] ?? ""}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
