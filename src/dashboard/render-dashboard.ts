import { ago, HOST_NAMES, shortSessionId } from "../coordination/coordination-text.js";
import { POLICIES } from "../coordination/wire.js";
import type { ConflictEntry, Overview, RepoPage, SessionPage } from "./dashboard-data.js";

/** What every page needs to know about who is looking. */
export interface ViewContext {
  readonly now: number;
  readonly team: string;
  readonly csrf: string;
  readonly readOnly: boolean;
  /** The path every page lives under ("" at the root). */
  readonly base: string;
}

/** Text made safe for HTML (content and attribute values). */
export function esc(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

/** "3 min ago", with the exact time on hover; the page's script keeps it current. */
function when(ms: number, now: number): string {
  const iso = new Date(ms).toISOString();
  return `<time datetime="${iso}" title="${iso.replace("T", " ").replace(/\.\d+Z$/, " UTC")}">${esc(ago(ms, now))}</time>`;
}

const host = (tool: string): string => HOST_NAMES[tool] ?? tool;
const kindClass = (kind: string): string => (kind.includes("breaking") ? "bad" : kind === "edit_conflict" || kind === "file_overlap" || kind === "symbol_overlap" ? "warn" : "info");

/** The whole document: header with the team and sign-out, a live status line, and the page's main part. */
export function renderPage(title: string, main: string, ctx: ViewContext | null, base = ctx?.base ?? ""): string {
  const b = esc(base);
  const nav =
    ctx === null
      ? ""
      : `<nav aria-label="Main"><a href="${b}/">Overview</a><span class="team">team <strong>${esc(ctx.team)}</strong>${ctx.readOnly ? " (read-only)" : ""}</span>
<form method="post" action="${b}/signout"><input type="hidden" name="csrf" value="${esc(ctx.csrf)}"><button type="submit">Sign out</button></form></nav>
<p id="live" role="status" aria-live="polite" data-state="connecting">Connecting…</p>`;
  return `<!doctype html>
<html lang="en" data-base="${b}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Comity</title><link rel="stylesheet" href="${b}/assets/dashboard.css"></head>
<body><header><a class="brand" href="${b}/">Comity</a>${nav}</header>
<main id="main">${main}</main>
${ctx === null ? "" : `<script src="${b}/assets/dashboard.js" defer></script>`}
</body></html>
`;
}

/** The sign-in page; `form`: the form's own token (also in its cookie), without which a post is refused. */
export function renderSignIn(error: string | null, base: string, form: string): string {
  return renderPage(
    "Sign in",
    `<h1>Sign in</h1>
<p>Paste a token of your team: one from <code>comity serve token create --team NAME</code>, or a read-only one (<code>--read-only</code>) for looking only.</p>
${error === null ? "" : `<p class="error" role="alert">${esc(error)}</p>`}
<form method="post" action="${esc(base)}/signin" class="signin">
<input type="hidden" name="form" value="${esc(form)}">
<label for="token">Team token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
    null,
    base,
  );
}

/** The sign-in page of this machine's dashboard, which has no tokens: only the link `comity status --web` prints. */
export function renderLinkOnly(base: string): string {
  return renderPage(
    "Sign in",
    `<h1>Open the link comity status --web printed</h1>
<p>This machine's dashboard has no tokens: each <code>comity status --web</code> prints a link that signs one browser in, once. That link was used already (by another browser or after signing out), or this is not the server that printed it.</p>
<p>Run <code>comity status --web</code> again for a new link.</p>`,
    null,
    base,
  );
}

export function renderOverview(o: Overview, ctx: ViewContext): string {
  const policy = ctx.readOnly
    ? `<p>Policy: <strong>${esc(o.policy)}</strong></p>`
    : `<form method="post" action="${esc(ctx.base)}/policy" class="policy"><input type="hidden" name="csrf" value="${esc(ctx.csrf)}">
<label for="policy">Policy</label> <select id="policy" name="policy">${POLICIES.map((p) => `<option value="${p}"${p === o.policy ? " selected" : ""}>${p}</option>`).join("")}</select>
<button type="submit">Apply</button></form>`;
  const repos =
    o.repos.length === 0
      ? `<p class="empty">No agents yet: run <code>comity init</code> in a repo, then <code>comity login</code> with a token of this team, and start an agent.</p>`
      : `<table><caption>Repos with activity</caption><thead><tr><th scope="col">Repo</th><th scope="col">Active sessions</th><th scope="col">Open conflicts</th><th scope="col">Breaking changes (12 h)</th></tr></thead><tbody>
${o.repos.map((r) => `<tr><th scope="row"><a href="${esc(ctx.base)}/repos/${esc(r.id)}">${esc(r.label)}</a></th><td>${r.sessions}</td><td>${r.conflicts > 0 ? `<span class="badge warn">${r.conflicts}</span>` : "0"}</td><td>${r.breaking > 0 ? `<span class="badge bad">${r.breaking}</span>` : "0"}</td></tr>`).join("\n")}
</tbody></table>`;
  const conflicts =
    o.conflicts.length === 0
      ? `<p class="empty">No open conflicts.</p>`
      : `<ul class="list">${o.conflicts.map((c) => `<li><span class="badge ${kindClass(c.kind)}">${esc(c.kind)}</span> ${esc(c.ref)} <code>${esc(c.subject)}</code>: ${esc(c.affected)} with ${esc(c.other)}, ${c.told ? "told" : "<strong>not told yet</strong>"} (${when(Date.parse(c.created_at), ctx.now)})</li>`).join("\n")}</ul>`;
  return `<h1>Team ${esc(o.team)}</h1>
${policy}
<p class="summary">${o.sessions} active session${o.sessions === 1 ? "" : "s"}, ${o.conflicts.length} open conflict${o.conflicts.length === 1 ? "" : "s"}, ${o.breaking.length} breaking change${o.breaking.length === 1 ? "" : "s"} in the last 12 hours</p>
<section aria-labelledby="repos-h"><h2 id="repos-h">Repos</h2>${repos}</section>
<section aria-labelledby="conflicts-h"><h2 id="conflicts-h">Open conflicts</h2>${conflicts}</section>
<section aria-labelledby="breaking-h"><h2 id="breaking-h">Breaking changes</h2>${breakingList(o.breaking, ctx)}</section>`;
}

function breakingList(list: Overview["breaking"], ctx: ViewContext): string {
  if (list.length === 0) return `<p class="empty">No breaking change in the last 12 hours.</p>`;
  return `<ul class="list">${list
    .map(
      (b) =>
        `<li><span class="badge bad">breaking</span> <code>${esc(b.qualified_name)}</code> in <code>${esc(b.path)}</code> (<a href="${esc(ctx.base)}/repos/${esc(b.repo_id)}">${esc(b.repo)}</a>) by <a href="${esc(ctx.base)}/sessions/${esc(b.session_id)}">${esc(b.who)}</a>: ${esc(b.summary)}, ${esc(b.state)} (${when(b.at, ctx.now)})</li>`,
    )
    .join("\n")}</ul>`;
}

function timeline(list: readonly ConflictEntry[], ctx: ViewContext): string {
  if (list.length === 0) return `<p class="empty">No conflicts in the last 12 hours.</p>`;
  return `<ol class="timeline">${list
    .map((c) => {
      const told = c.withdrawn_at !== null ? `withdrawn ${when(c.withdrawn_at, ctx.now)}` : c.told_at !== null ? `told ${when(c.told_at, ctx.now)}` : `<strong>queued</strong>`;
      const role = c.role === "informed" ? "informed that" : "affects";
      return `<li>${when(c.created_at, ctx.now)} <span class="badge ${kindClass(c.kind)}">${esc(c.kind)}</span> ${esc(c.ref)} <code>${esc(c.subject)}</code>: ${role} <a href="${esc(ctx.base)}/sessions/${esc(c.affected_id)}">${esc(c.affected)}</a>${c.role === "informed" ? " hears of" : ", with"} <a href="${esc(ctx.base)}/sessions/${esc(c.other_id)}">${esc(c.other)}</a>; ${told}</li>`;
    })
    .join("\n")}</ol>`;
}

export function renderRepo(p: RepoPage, ctx: ViewContext): string {
  const sessions =
    p.sessions.length === 0
      ? `<p class="empty">No active session in this repo.</p>`
      : p.sessions
          .map((s) => {
            const held = [...new Set(s.intents.flatMap((i) => i.paths))].sort();
            const changes = s.changes.map(
              (c) =>
                `<li><span class="badge ${c.compatibility === "breaking" ? "bad" : c.compatibility === "compatible" ? "ok" : "info"}">${esc(c.compatibility)}</span> <code>${esc(c.qualified_name)}</code> in <code>${esc(c.path)}</code> (${esc(c.change)}, ${esc(c.state)})</li>`,
            );
            return `<article class="session"><h3><a href="${esc(ctx.base)}/sessions/${esc(s.session_id)}">${esc(s.label ?? "?")} · ${esc(host(s.tool))} ${esc(shortSessionId(s.external_id))}</a>${s.parent_external_id !== null ? " (subagent)" : ""}</h3>
<dl><dt>Folder</dt><dd><code>${esc(folderOf(s))}</code></dd><dt>Branch</dt><dd>${esc(s.branch ?? "-")}</dd><dt>Since</dt><dd>${when(Date.parse(s.started_at), ctx.now)}</dd><dt>Last seen</dt><dd>${when(Date.parse(s.last_seen_at), ctx.now)}</dd>${s.status_excerpt === null ? "" : `<dt>Last status</dt><dd>${esc(s.status_excerpt)}</dd>`}<dt>Queued for it</dt><dd>${s.queued}</dd></dl>
<p>Holds: ${held.length === 0 ? "nothing" : held.map((f) => `<code>${esc(f)}</code>`).join(", ")}</p>
${(s.reservations ?? []).length === 0 ? "" : `<p>Reserved: ${(s.reservations ?? []).map((r) => `<code>${esc(r.pattern)}</code> (${esc(r.ref)}, ${r.exclusive ? "exclusive" : "shared"}, until ${when(Date.parse(r.expires_at), ctx.now)}${r.reason === null ? "" : `: “${esc(r.reason)}”`})`).join(", ")}</p>`}
${changes.length === 0 ? "" : `<ul class="list">${changes.join("\n")}</ul>`}
${s.messages.length === 0 ? "" : `<h4>Messages for it</h4><ul class="list">${s.messages.map((m) => `<li>from ${esc(m.from)} ${when(Date.parse(m.at), ctx.now)}: “${esc(m.text)}” (${m.delivered ? "given" : "not given yet"})</li>`).join("\n")}</ul>`}</article>`;
          })
          .join("\n");
  return `<p><a href="${esc(ctx.base)}/">← Overview</a></p><h1>${esc(p.repo.label)}</h1>
<section aria-labelledby="s-h"><h2 id="s-h">Active sessions (${p.sessions.length})</h2>${sessions}</section>
<section aria-labelledby="c-h"><h2 id="c-h">Conflicts, newest first</h2>${timeline(p.conflicts, ctx)}</section>
<section aria-labelledby="b-h"><h2 id="b-h">Breaking changes</h2>${breakingList(p.breaking, ctx)}</section>`;
}

export function renderSession(p: SessionPage, ctx: ViewContext): string {
  const s = p.session;
  const events =
    p.events.length === 0
      ? `<p class="empty">No events recorded.</p>`
      : `<ol class="timeline">${p.events
          .map(
            (e) =>
              `<li>${when(e.at, ctx.now)} <code>${esc(e.event)}</code>${
                e.paths.length > 0
                  ? ` ${e.paths
                      .slice(0, 5)
                      .map((x) => `<code>${esc(x)}</code>`)
                      .join(", ")}`
                  : ""
              }: <span class="badge ${e.decision === "block" ? "bad" : e.decision === "warn" ? "warn" : "ok"}">${esc(e.decision)}</span>${e.refs.length > 0 ? ` told ${e.refs.map(esc).join(", ")}` : ""}</li>`,
          )
          .join("\n")}</ol>`;
  return `<p><a href="${esc(ctx.base)}/repos/${esc(s.repo_id)}">← ${esc(s.repo)}</a></p><h1>${esc(s.label ?? "?")} · ${esc(host(s.tool))} ${esc(shortSessionId(s.external_id))}</h1>
<dl><dt>Folder</dt><dd><code>${esc(folderOf(s))}</code></dd><dt>Branch</dt><dd>${esc(s.branch ?? "-")}</dd><dt>Started</dt><dd>${when(s.started_at, ctx.now)}</dd><dt>Last seen</dt><dd>${when(s.last_seen_at, ctx.now)}</dd><dt>State</dt><dd>${s.ended_at !== null ? "ended" : "active"}</dd>${s.status_excerpt === null ? "" : `<dt>Last status</dt><dd>${esc(s.status_excerpt)}</dd>`}</dl>
<section aria-labelledby="e-h"><h2 id="e-h">Events, in order</h2>${events}</section>
<section aria-labelledby="c-h"><h2 id="c-h">Its conflicts</h2>${timeline(p.conflicts, ctx)}</section>`;
}

/** Where a session works: its working tree's folder (`~/work/vite-feature`), with its folder in it when not the root. */
function folderOf(s: { readonly worktree?: string | null; readonly cwd_path: string | null }): string {
  const inside = s.cwd_path !== null && s.cwd_path !== "." ? s.cwd_path : null;
  if (s.worktree != null) return inside === null ? s.worktree : `${s.worktree} (${inside})`;
  return s.cwd_path ?? "-";
}
