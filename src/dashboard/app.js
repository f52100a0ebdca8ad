// The dashboard: one page of plain ES modules over the admin API (docs/operations.md, "Dashboard").
// Every value from the API goes into the page as text (textContent), never as markup. Money arrives
// as exact decimal strings and is shown as written.

import uPlot from "/dashboard/vendor/uPlot.esm.js";

const API = "/api/v1/admin";
const $ = (selector) => document.querySelector(selector);

/** An element with attributes and children (strings become text nodes). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "onclick") node.addEventListener("click", value);
    else if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  for (const child of children.flat())
    node.append(child instanceof Node ? child : document.createTextNode(child ?? ""));
  return node;
}

/** A table cell; `td.mono`, one in the fixed-width font that ids and key prefixes are shown in. */
const td = (...children) => el("td", {}, ...children);
td.mono = (text) => el("td", { class: "mono" }, text);

/** Replaces the rows of `table`'s body: one per record, `data-id` its id, holding the cells `cells` makes. */
function fillTable(table, records, cells) {
  $(`${table} tbody`).replaceChildren(...records.map((r) => el("tr", { "data-id": r.id }, ...cells(r))));
}

class Unauthorized extends Error {}

async function api(path, init = {}) {
  const res = await fetch(`${API}${path}`, {
    ...init,
    headers: init.body ? { "content-type": "application/json" } : {},
  });
  if (res.status === 401) throw new Unauthorized();
  const body = await res.json();
  if (!res.ok) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
  return body;
}

const fmt = {
  int: (n) => (n ?? 0).toLocaleString("en-US"),
  ms: (n) => (n === null || n === undefined ? "—" : `${n.toLocaleString("en-US")} ms`),
  pct: (x) => `${((x ?? 0) * 100).toFixed(1)} %`,
  bytes: (n) => `${(n ?? 0).toLocaleString("en-US")} B`,
  usd: (s) => (s === null || s === undefined ? "—" : `$${s}`),
  time: (iso) => (iso ? new Date(iso).toISOString().replace("T", " ").slice(0, 19) : "—"),
};

// ── login ───────────────────────────────────────────────────────────────────────────────────────

function showLogin() {
  $("#app").hidden = true;
  $("#login").hidden = false;
  $("#admin-key").focus();
}

$("#login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const res = await fetch("/dashboard/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key: $("#admin-key").value }),
  });
  if (res.status !== 204) {
    $("#login-error").textContent = (await res.json())?.error?.message ?? "Sign-in failed.";
    return;
  }
  $("#admin-key").value = "";
  $("#login-error").textContent = "";
  start();
});

$("#logout").addEventListener("click", async () => {
  await fetch("/dashboard/logout", { method: "POST" });
  showLogin();
});

// ── pages ───────────────────────────────────────────────────────────────────────────────────────

const pages = { overview, generations, keys, accounts, models, providers };

async function show() {
  const name = location.hash.slice(1) in pages ? location.hash.slice(1) : "overview";
  for (const page of document.querySelectorAll(".page"))
    page.classList.toggle("active", page.id === `page-${name}`);
  for (const link of document.querySelectorAll("header nav a"))
    link.classList.toggle("active", link.getAttribute("href") === `#${name}`);
  try {
    await pages[name]();
  } catch (err) {
    if (err instanceof Unauthorized) showLogin();
    else console.error(err);
  }
}

async function start() {
  // Asked of the session endpoint (200 either way), not of the admin API, whose 401 the browser
  // would log in the console of every signed-out visit.
  const session = await (await fetch("/dashboard/session")).json();
  if (!session.signedIn) return showLogin();
  $("#login").hidden = true;
  $("#app").hidden = false;
  await show();
}

window.addEventListener("hashchange", show);

// ── overview ────────────────────────────────────────────────────────────────────────────────────

const charts = new Map();

async function overview() {
  await Promise.all([usage(), storedResponses()]);
}

async function usage() {
  const days = Number($("#range").value);
  const from = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const data = await api(`/overview?from=${from}`);
  const t = data.total;
  $("#totals").replaceChildren(
    ...[
      ["Spend", fmt.usd(t.cost)],
      ["Requests", fmt.int(t.requests)],
      ["Error rate", fmt.pct(t.errorRate)],
      ["Tokens in", fmt.int(t.tokens.prompt)],
      ["Tokens out", fmt.int(t.tokens.completion)],
      ["Latency p50 / p95", `${fmt.ms(t.latencyMs.p50)} / ${fmt.ms(t.latencyMs.p95)}`],
      ["TTFT p50 / p95", `${fmt.ms(t.ttftMs.p50)} / ${fmt.ms(t.ttftMs.p95)}`],
    ].map(([label, value]) => el("div", {}, el("b", {}, value), el("span", {}, label))),
  );
  const x = data.days.map((d) => Date.parse(`${d.group}T00:00:00Z`) / 1000);
  const col = (pick) => data.days.map(pick);
  // Charts draw numbers: the exact cost strings become doubles here, for drawing only.
  chart("spend", x, [["USD", col((d) => Number(d.cost)), "#2457c5"]]);
  chart("requests", x, [
    ["requests", col((d) => d.requests), "#2457c5"],
    ["errors", col((d) => d.errors), "#b42318"],
  ]);
  chart("tokens", x, [
    ["in", col((d) => d.tokens.prompt), "#2457c5"],
    ["out", col((d) => d.tokens.completion), "#1a7f37"],
  ]);
  chart("latency", x, [
    ["p50", col((d) => d.latencyMs.p50), "#2457c5"],
    ["p95", col((d) => d.latencyMs.p95), "#b42318"],
  ]);
}

/** What each account's stored responses hold (docs/responses.md), largest first. */
async function storedResponses() {
  const { data } = await api("/accounts");
  const rows = data
    .filter((a) => a.storedResponseBytes > 0)
    .sort((a, b) => b.storedResponseBytes - a.storedResponseBytes);
  $("#stored tbody").replaceChildren(
    ...rows.map((a) =>
      el(
        "tr",
        { "data-account": a.id },
        td.mono(a.id),
        el("td", { class: "bytes" }, fmt.bytes(a.storedResponseBytes)),
      ),
    ),
  );
}

function chart(name, x, series) {
  charts.get(name)?.destroy();
  const target = $(`#chart-${name}`);
  const options = {
    width: Math.max(320, target.clientWidth || 480),
    height: 200,
    series: [{}, ...series.map(([label, , stroke]) => ({ label, stroke, width: 2, points: { show: true } }))],
    // Small amounts (a few micro-dollars) would all print as "0" with uPlot's default ticks.
    axes: [
      {},
      {
        size: 70,
        values: (_u, ticks) => ticks.map((v) => (v === 0 ? "0" : Number(v.toPrecision(3)).toString())),
      },
    ],
  };
  charts.set(name, new uPlot(options, [x, ...series.map(([, values]) => values)], target));
}

$("#range").addEventListener("change", () => usage().catch(console.error));

// ── generations ─────────────────────────────────────────────────────────────────────────────────

let generationCursor = null;

function generationQuery() {
  const form = new FormData($("#generation-filters"));
  const params = new URLSearchParams();
  for (const [name, value] of form) {
    if (value === "") continue;
    params.set(name, name === "from" || name === "to" ? new Date(value).toISOString() : value);
  }
  return params;
}

async function generations(append = false) {
  const params = generationQuery();
  if (append && generationCursor) params.set("cursor", generationCursor);
  const page = await api(`/generations?${params}`);
  const rows = page.data.map((g) =>
    el(
      "tr",
      { "data-id": g.generationId, onclick: () => drilldown(g.generationId) },
      td(fmt.time(g.createAt)),
      td.mono(g.generationId),
      td(g.accountId),
      td(g.model),
      td(g.provider ?? "—"),
      td(g.status),
      td(`${fmt.int(g.nativeTokens.prompt_tokens)} / ${fmt.int(g.nativeTokens.completion_tokens)}`),
      el("td", { class: "cost" }, fmt.usd(g.cost)),
      td(fmt.ms(g.timings.totalMs)),
    ),
  );
  const body = $("#generations tbody");
  if (append) body.append(...rows);
  else body.replaceChildren(...rows);
  generationCursor = page.nextCursor;
  $("#more-generations").hidden = !page.nextCursor;
}

async function drilldown(id) {
  const g = await api(`/generations/${encodeURIComponent(id)}`);
  const field = (label, value) => [el("dt", {}, label), el("dd", {}, value ?? "—")];
  const tokens = g.tokens ?? {};
  const rating = g.ratingResponses;
  $("#drilldown").replaceChildren(
    el("h2", {}, "Generation ", el("span", { class: "mono" }, g.generationId)),
    el(
      "dl",
      {},
      field("Cost", el("span", { id: "drilldown-cost" }, fmt.usd(g.cost))),
      field("Status", g.status),
      field("Account / key", `${g.accountId} / ${g.keyId}`),
      field("API", g.api),
      field("Model", g.model),
      field("Provider", g.provider),
      field("Attempts", `${g.attempts} (retries ${g.requestRetryTimes}, final ${g.finalRetry})`),
      field("Streamed", String(g.streamed)),
      field("Finish reason", g.finishReason),
      field("Session", g.sessionId),
      field("Created", fmt.time(g.timings.createdAt)),
      field("Time to first token", fmt.ms(g.timings.timeToFirstTokenMs)),
      field("Generation time", fmt.ms(g.timings.generationTimeMs)),
      field("Total", fmt.ms(g.timings.totalMs)),
      field("Completed", fmt.time(g.timings.completedAt)),
      field("Settled", fmt.time(g.timings.settledAt)),
      field(
        "Tokens",
        `prompt ${fmt.int(tokens.promptTokens)}, cache read ${fmt.int(tokens.cacheReadTokens)}, ` +
          `cache write ${fmt.int((tokens.cacheWrite5mTokens ?? 0) + (tokens.cacheWrite1hTokens ?? 0))}, ` +
          `completion ${fmt.int(tokens.completionTokens)}, reasoning ${fmt.int(tokens.reasoningTokens)}`,
      ),
      field("Price version", rating?.priceVersion),
      field("Error", g.errorMessage),
    ),
    rating
      ? el(
          "table",
          { id: "rating-details" },
          el(
            "thead",
            {},
            el("tr", {}, ...["Fee item", "Rate", "Origin", "Discount", "Bill"].map((h) => el("th", {}, h))),
          ),
          el(
            "tbody",
            {},
            // The rating's numbers are JSON numbers; the exact total is `cost` above.
            ...rating.ratingDetails.map((d) =>
              el(
                "tr",
                {},
                ...[d.feeItemCode, d.rate, d.originAmount, d.discountAmount, d.billAmount].map((v) =>
                  td(String(v)),
                ),
              ),
            ),
          ),
        )
      : el("p", {}, "Not rated yet."),
  );
  $("#drilldown").hidden = false;
}

$("#generation-filters").addEventListener("submit", (event) => {
  event.preventDefault();
  generations().catch(console.error);
});
$("#more-generations").addEventListener("click", () => generations(true).catch(console.error));

// ── keys ────────────────────────────────────────────────────────────────────────────────────────

async function keys() {
  const { data } = await api("/keys");
  fillTable("#keys", data, (k) => [
    td(k.name ?? "—"),
    td.mono(k.prefix),
    td.mono(k.id),
    td(k.account),
    td(k.kind),
    td(fmt.usd(k.spend.today)),
    td(fmt.usd(k.spend.month)),
    td(limitsOf(k)),
    td(fmt.time(k.createdAt)),
    td(k.revokedAt ? `revoked ${fmt.time(k.revokedAt)}` : "active"),
    td(
      k.revokedAt
        ? ""
        : el("button", { class: "secondary revoke", type: "button", onclick: () => revoke(k.id) }, "Revoke"),
    ),
  ]);
}

/** A key's limits and budget with what it spent against the budget, when the API reports them. */
function limitsOf(k) {
  const parts = [];
  if (k.limits) for (const [name, value] of Object.entries(k.limits)) parts.push(`${name} ${value}`);
  if (k.budget) {
    const spent = { day: k.spend.today, month: k.spend.month, total: k.spend.total }[k.budget.period];
    parts.push(
      `$${spent} settled + $${k.spend.reserved} reserved of $${k.budget.usd} ` +
        (k.budget.period === "total" ? "in total" : `per ${k.budget.period}`),
    );
  }
  return parts.length ? parts.join(", ") : "none";
}

async function revoke(id) {
  await api(`/keys/${encodeURIComponent(id)}`, { method: "DELETE" });
  await keys();
}

$("#new-key").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = Object.fromEntries(new FormData(event.target));
  const body = { account: form.account, kind: form.kind };
  if (form.name) body.name = form.name;
  if (form.credits) body.credits = form.credits;
  const limits = {};
  for (const name of ["rpm", "tpm", "concurrency"]) if (form[name]) limits[name] = Number(form[name]);
  if (Object.keys(limits).length) body.limits = limits;
  if (form.budget_usd) body.budget = { usd: form.budget_usd, period: form.budget_period };
  try {
    const made = await api("/keys", { method: "POST", body: JSON.stringify(body) });
    $("#keys-error").textContent = "";
    $("#new-key-secret").replaceChildren(
      "New key (shown once, copy it now): ",
      el("code", { id: "new-key-value", class: "mono" }, made.key),
    );
    $("#new-key-secret").hidden = false;
    event.target.reset();
    await keys();
  } catch (err) {
    $("#keys-error").textContent = err.message;
  }
});

// ── accounts ────────────────────────────────────────────────────────────────────────────────────

/** Each account's settled balance and the spend held against it by requests in flight. */
async function accounts() {
  const { data } = await api("/accounts");
  fillTable("#accounts", data, (a) => [
    td.mono(a.id),
    td(fmt.usd(a.balance)),
    td(fmt.usd(a.reserved)),
    td(fmt.usd(a.settling)),
    td(a.discount ?? "—"),
    td(fmt.time(a.createdAt)),
  ]);
}

// ── models ──────────────────────────────────────────────────────────────────────────────────────

async function models() {
  const { data } = await api("/models");
  $("#models tbody").replaceChildren(
    ...data.map((m) =>
      el(
        "tr",
        {},
        td.mono(m.id),
        td(m.display_name ?? ""),
        td(fmt.int(m.context_length)),
        el(
          "td",
          {},
          el(
            "ul",
            {},
            ...Object.entries(m.pricings ?? {}).flatMap(([category, items]) =>
              items.map((item) => el("li", {}, priceText(category, item))),
            ),
          ),
        ),
      ),
    ),
  );
}

/** "prompt: 1.25 perMTokens (prompt ≤ 200k)": a tier shows its condition. */
function priceText(category, item) {
  const conditions = Object.entries(item.conditions ?? {}).map(([on, c]) => {
    const bounds = [
      ["gt", ">"],
      ["gte", "≥"],
      ["lt", "<"],
      ["lte", "≤"],
    ]
      .filter(([op]) => c[op] !== undefined && c[op] !== null)
      .map(([op, sign]) => `${sign} ${c[op]}${c.unit === "kTokens" ? "k" : ""}`);
    return `${on.replace("_tokens", "")} ${bounds.join(" and ")}`;
  });
  return `${category}: ${item.value} ${item.unit}${conditions.length ? ` (${conditions.join(", ")})` : ""}`;
}

// ── providers ───────────────────────────────────────────────────────────────────────────────────

async function providers() {
  const { data } = await api("/providers");
  $("#providers").replaceChildren(
    ...data
      .filter((p) => p.enabled)
      .map((p) =>
        el(
          "section",
          { class: "card" },
          el(
            "h3",
            {},
            `${p.id} `,
            el("small", {}, p.protocol === "local" ? "built-in demo models" : `${p.protocol} · ${p.baseUrl}`),
          ),
          el(
            "table",
            {},
            el(
              "thead",
              {},
              el(
                "tr",
                {},
                ...["Model", "Breaker", "OK", "Errors", "TTFT", "Duration", "Tokens/s"].map((h) =>
                  el("th", {}, h),
                ),
              ),
            ),
            el(
              "tbody",
              {},
              ...p.endpoints.map((e) =>
                el(
                  "tr",
                  {},
                  td.mono(e.model),
                  el(
                    "td",
                    { class: `state-${e.breaker}` },
                    e.blockedForMs ? `${e.breaker} (${Math.ceil(e.blockedForMs / 1000)} s)` : e.breaker,
                  ),
                  td(fmt.int(e.ok)),
                  td(fmt.int(e.errors)),
                  td(fmt.ms(e.ttftMs === null ? null : Math.round(e.ttftMs))),
                  td(fmt.ms(e.durationMs === null ? null : Math.round(e.durationMs))),
                  td(e.tokensPerSecond === null ? "—" : e.tokensPerSecond.toFixed(1)),
                ),
              ),
            ),
          ),
          p.recentErrors.length
            ? el(
                "ul",
                { class: "error" },
                ...p.recentErrors.map((e) =>
                  el("li", {}, `${fmt.time(e.at)} ${e.endpoint} ${e.status ?? ""} ${e.message}`),
                ),
              )
            : el("p", {}, "No recent errors."),
        ),
      ),
  );
}

start();
