/**
 * The dashboard's stylesheet and script, served from the package itself (nothing from the internet, no build
 * step). The script keeps the page live: an EventSource on `/events` (under the page's base path), and on each change the page's main part
 * fetched again and swapped in place; relative times kept current; the connection's state said in a live region.
 */
export const DASHBOARD_CSS = `:root{color-scheme:light dark;--fg:#1d2430;--bg:#fbfbfd;--muted:#5b6473;--line:#d8dce3;--bad:#b3261e;--warn:#8a5a00;--ok:#1e6b3a;--info:#2b5797;--focus:#1a73e8}
@media (prefers-color-scheme:dark){:root{--fg:#e7e9ee;--bg:#14171c;--muted:#a5adba;--line:#333a45;--bad:#ff8a80;--warn:#ffcc66;--ok:#7bd88f;--info:#9ecbff}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;flex-wrap:wrap;gap:.75rem 1.5rem;align-items:center;padding:.75rem 1rem;border-bottom:1px solid var(--line)}
.brand{font-weight:700;text-decoration:none;color:var(--fg)}nav{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;flex:1}
nav form{margin-left:auto}main{padding:1rem;max-width:72rem;margin:0 auto}h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.15rem;margin-top:1.5rem}h3{font-size:1rem;margin:0 0 .5rem}
a{color:var(--info)}a:focus-visible,button:focus-visible,select:focus-visible,input:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
button,select,input{font:inherit;padding:.35rem .6rem;border:1px solid var(--line);border-radius:.3rem;background:var(--bg);color:var(--fg)}button{cursor:pointer}
table{border-collapse:collapse;width:100%}caption{text-align:left;color:var(--muted);padding-bottom:.25rem}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line)}
.badge{display:inline-block;padding:0 .4rem;border-radius:.25rem;border:1px solid currentColor;font-size:.85em;font-weight:600}
.bad{color:var(--bad)}.warn{color:var(--warn)}.ok{color:var(--ok)}.info{color:var(--info)}
.empty{color:var(--muted)}.error{color:var(--bad);font-weight:600}.summary{color:var(--muted)}
.list,.timeline{padding-left:1.25rem}.list li,.timeline li{margin:.25rem 0}
.session{border:1px solid var(--line);border-radius:.4rem;padding:.75rem;margin:.75rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.25rem 0}dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
#live{margin:0;font-size:.85rem;color:var(--muted);min-width:14rem}#live[data-state=live]{color:var(--ok)}#live[data-state=lost]{color:var(--bad)}
.signin{display:grid;gap:.5rem;max-width:28rem}code{overflow-wrap:anywhere}
@media (max-width:40rem){table,thead,tbody,tr,th,td{display:block}thead{position:absolute;left:-9999px}td,th{border:0;padding:.1rem 0}tr{border-bottom:1px solid var(--line);padding:.4rem 0}}
`;

export const DASHBOARD_JS = `"use strict";
(() => {
  const base = document.documentElement.dataset.base || "";
  const live = document.getElementById("live");
  const say = (state, text) => { if (live) { live.dataset.state = state; live.textContent = text; } };
  const ago = (ms) => {
    const s = Math.max(0, Math.floor((Date.now() - ms) / 1000));
    if (s < 60) return "just now";
    const m = Math.floor(s / 60);
    if (m < 60) return m + " min ago";
    const h = Math.floor(m / 60);
    return h < 48 ? h + " h ago" : Math.floor(h / 24) + " days ago";
  };
  const tick = () => { for (const t of document.querySelectorAll("time[datetime]")) t.textContent = ago(Date.parse(t.getAttribute("datetime"))); };
  let pending = false;
  const refresh = async () => {
    if (pending) return;
    pending = true;
    try {
      const r = await fetch(location.pathname + "?fragment=1", { credentials: "same-origin", headers: { accept: "text/html" } });
      if (r.status === 401) { location.href = base + "/signin"; return; }
      if (!r.ok) return;
      const html = await r.text();
      const main = document.getElementById("main");
      const focused = document.activeElement && document.activeElement.id;
      if (main && main.innerHTML !== html) main.innerHTML = html;
      if (focused) { const f = document.getElementById(focused); if (f) f.focus(); }
      tick();
    } finally { pending = false; }
  };
  let lostOnce = false;
  const connect = () => {
    const es = new EventSource(base + "/events");
    es.onopen = () => { say("live", "Live: updates as agents work"); if (lostOnce) refresh(); };
    es.addEventListener("change", refresh);
    // A newer page of the same sign-in took this one's place (a sign-in has a few live pages at most): this one
    // stops, rather than connecting again and taking another's.
    es.addEventListener("replaced", () => { es.close(); say("paused", "Paused: a newer page is live. Reload to go live here."); });
    es.onerror = () => {
      lostOnce = true;
      say("lost", "Connection lost: reconnecting…");
      if (es.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
    };
  };
  connect();
  tick();
  setInterval(tick, 30000);
})();
`;
