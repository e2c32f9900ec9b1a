// suanli web page: plain JS, SVG charts by hand (no library, no CDN: offline). Every label comes from the
// message catalog the CLI and the API use (GET /api/messages?lang=zh|en; ids `web.*`, `vendor.*` …).
"use strict";
const $ = s => document.querySelector(s);
const MSG = {}; // lang -> {id: text}
const params = new URLSearchParams(location.hash.slice(1));
let lang = params.get("lang") || localStorage.getItem("suanli-lang") || ((navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en");
if (lang !== "zh" && lang !== "en") lang = "en";
// a low–high range, one value where both ends print alike ("0 weeks", not "0–0"), as suanli.i18n.span_text
const span = (lo, hi) => lo === hi ? lo : `${lo}–${hi}`;
// {k} or a Python format spec ({lo:.1f}, {tps:,.0f}): numbers in the page's locale
const cell = (p, m, k, spec) => {  // m: the field as written, kept where p has no k
  if (!p || !(k in p)) return m;
  if (spec && spec.includes("/")) {  // {n:/card/cards}: the count and its noun by the count, as i18n._Formatter
    const [s, one, many] = spec.split("/");
    const n = p[k] == 1 ? one : many;  // {n:noun/x/xs}: the noun alone
    return s === "noun" ? n : `${cell(p, m, k, s || undefined)} ${n}`;
  }
  const v = p[k], d = /\.(\d+)/.exec(spec || "");
  if (spec === undefined || typeof v !== "number") return String(v);
  return v.toLocaleString(lang === "zh" ? "zh-CN" : "en-US", !d ? {maximumFractionDigits: 6} : spec.endsWith("g") ? {maximumSignificantDigits: +d[1]} : {minimumFractionDigits: +d[1], maximumFractionDigits: +d[1]});
};
// a template's range ({lo:g}–{hi:g}, ¥{lo}–¥{hi}) through `span`, as i18n.render does
const FIELD = /(¥?)\{(\w+)(?::([^}]*))?\}–\1\{(\w+)(?::([^}]*))?\}|\{(\w+)(?::([^}]*))?\}/g;
const field = (p, k, spec) => cell(p, spec === undefined ? `{${k}}` : `{${k}:${spec}}`, k, spec);
const fill = (s, p) => s.replace(FIELD, (m, cur, a, aSpec, b, bSpec, k, spec) => k !== undefined ? field(p, k, spec)
  : span(cur + field(p, a, aSpec), cur + field(p, b, bSpec)))
  .replace(/¥([-+])(?=\d)/g, "$1¥");  // money's sign before the currency, as the catalog's renderer writes it: -¥20,000
const t = (k, p) => { const c = MSG[lang] || {}; return fill(c["web." + k] ?? c[k] ?? (MSG.en || {})["web." + k] ?? k, p); };
const label = (prefix, v) => { const c = MSG[lang] || {}; return c[prefix + "." + v] ?? v; };  // vendor.huawei -> 华为
// devices named as their vendors write them in Chinese (name_zh from /api/accelerators: 华为昇腾 910B) on the zh page
const NAMES = {}, EN_NAMES = {};
const knowNames = accs => accs.forEach(a => { NAMES[a.id] = a.name_zh; EN_NAMES[a.id] = a.name; });
const devName = (id, name) => (lang === "zh" && NAMES[id]) || name || EN_NAMES[id] || id;
const state = {plan: null, compare: null, value: null, tco: null, accs: null, detail: null, sources: null,
  planBody: null, cmpBody: null, tcoBody: null, mig: null, migBody: null, rvb: null, rvbBody: null, check: null, checkBody: null};  // the requests behind the answers shown (the toggle asks again)
const COLORS = ["#0b6bcb","#e8590c","#2f9e44","#ae3ec9","#b8860b","#1098ad","#d6336c","#5c7cfa","#868e96","#5c940d"];
const GiB = 2 ** 30;

const MSG_LOADING = {};
async function loadMessages(l) {
  if (MSG[l]) return;
  MSG_LOADING[l] = MSG_LOADING[l] || fetch("/api/messages?lang=" + l).then(r => r.json());
  MSG[l] = await MSG_LOADING[l];
}

function applyLang() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  document.querySelectorAll("[data-i18n]").forEach(el => { el.textContent = t(el.dataset.i18n); });
  document.querySelectorAll("[data-i18n-label]").forEach(el => { el.setAttribute("aria-label", t(el.dataset.i18nLabel)); });
  document.querySelectorAll("[data-i18n-field]").forEach(el => { el.textContent = t("field." + el.dataset.i18nField).replace(/^[“"]|[”"]$/g, ""); });
  document.querySelectorAll("[data-i18n-placeholder]").forEach(el => { el.placeholder = t(el.dataset.i18nPlaceholder).replace(/`/g, ""); });
  const toggle = $("#lang-toggle");
  toggle.textContent = lang === "zh" ? "English" : "中文";
  toggle.lang = lang === "zh" ? "en" : "zh";
  if (state.plan) renderPlan(state.plan);
  if (state.compare) renderCompare(state.compare);
  if (state.value) renderValue(state.value);
  if (state.tco) renderTco(state.tco);
  if (state.mig) renderMigrate(state.mig);
  if (state.check) renderCheck(state.check);
  if (state.rvb) renderRvb(state.rvb);
  if (state.accs) renderAccs(state.accs);
  if (state.detail) renderDetail(state.detail);
  fillDevices();
}

async function api(path, body) {
  const opt = {headers: {"Accept-Language": lang}};
  if (body !== undefined) Object.assign(opt, {method: "POST", headers: {"Content-Type": "application/json", "Accept-Language": lang}, body: JSON.stringify(body)});
  const r = await fetch(path, opt);
  const data = await r.json().catch(() => ({error: r.statusText}));
  if (!r.ok) { const e = new Error(data.error || r.statusText); e.data = data; throw e; }
  return data;
}
const esc = s => String(s ?? "").replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
// `code` spans as <code> wherever the page writes text (text nodes split: nothing parsed as HTML)
new MutationObserver(ms => ms.forEach(m => { const w = document.createTreeWalker(m.target, 4), ts = []; let n;
  while ((n = w.nextNode())) if (/`[^`]+`/.test(n.data) && !n.parentNode.closest("svg,option,code")) ts.push(n);
  ts.forEach(n => n.replaceWith(...n.data.split(/`([^`]+)`/).map((s, i) => i % 2 ? Object.assign(document.createElement("code"), {textContent: s}) : s)));
})).observe(document.body, {childList: true, subtree: true});
const fmt = (v, d = 1) => v == null ? "" : typeof v === "number" ? v.toLocaleString(lang === "zh" ? "zh-CN" : "en-US", {maximumFractionDigits: d}) : esc(v);
// prices: the same region filter and offer kinds as the API (issue 11): cn listings by default
const KINDS_ALL = ["listing", "index", "reference", "contract"];
const kindsOf = sel => $(sel).value === "all" ? KINDS_ALL : ["listing"];
const isIntl = region => !!region && !/^(cn|china)/i.test(region);
const intlTag = region => isIntl(region) ? ` <span class="intl" title="${esc(region)}">${t("international")}</span>` : "";
// a region cell: the platform's region, and the international mark (alone when the region says just that)
const regionCell = (region, intl) => (region && region !== "international" ? esc(region) : "") +
  (intl ? ` <span class="intl">${t("international")}</span>` : "");
// a price kind as the catalog names it (price_kinds.*, one per catalog.schema.OfferKind)
const kindLabel = k => label("price_kinds", k);
const basis = (region, kinds) => t("basis", {region: t("region_" + region), kinds: (kinds || ["listing"]).map(kindLabel).join(", ")});
// a subsidised cost as the CLI's subsidy line writes it (plan.cost.subsidy_note): gross → net, else the figure alone
const grossNet = (net, gross, sub, d = 0) => sub && gross != null && gross !== net
  ? `<span class="gross">${fmt(gross, d)} →</span> ${fmt(net, d)}` : fmt(net, d);
const td = (key, html, cls = "") => `<td data-label="${esc(t(key))}"${cls ? ` class="${cls}"` : ""}>${html}</td>`;

// ---- state in the URL (#tab=plan&model=…&task=…)
// each tab's own fields: a link to one tab carries that tab's form only (the compare link no plan fields)
const TAB_FORM = {
  plan: ["model", "task", "tokens", "rps", "input", "output", "users", "ttft", "tpot", "period", "period-unit", "budget", "deadline", "subsidy",
    "max-gpus", "gpus", "objective", "region", "kinds", "framework", "precision"],
  compare: ["cmp-model", "cmp-task", "cmp-gpus", "cmp-tokens", "cmp-rps", "cmp-users", "cmp-tpot", "cmp-ttft", "cmp-input", "cmp-output",
    "cmp-precision", "cmp-period", "cmp-period-unit", "cmp-region", "cmp-kinds"],
  value: ["val-region", "val-kinds"], tco: ["tco-gpu", "tco-hours", "tco-gpus", "tco-subsidy", "tco-tps", "tco-region", "tco-kinds"],
  migrate: ["mig-model", "mig-task", "mig-from", "mig-to", "mig-spend", "mig-gpus", "mig-parallel", "mig-uses", "mig-precision", "mig-rps", "mig-tpot", "mig-ttft", "mig-input",
    "mig-output", "mig-region", "mig-kinds"],
  rvb: ["rvb-gpu", "rvb-cards", "rvb-years", "rvb-util", "rvb-pattern", "rvb-subsidy", "rvb-server", "rvb-ops", "rvb-region", "rvb-kinds"], catalog: []};
const FORM = Object.values(TAB_FORM).flat();
// a link's value that is none of the options (an unknown model) kept as one: the API's refusal reaches the user
function setValue(id, v) {
  const el = $("#" + id);
  if (el.tagName === "SELECT" && v && ![...el.options].some(o => o.value === v)) el.add(new Option(v, v));
  el.value = v;
}
const DEFAULTS = {};  // filled at start: a field at its default stays out of the URL
function saveUrl() {
  const p = new URLSearchParams();
  p.set("tab", document.querySelector(".tab.active").dataset.tab);
  p.set("lang", lang);
  const tab = p.get("tab");
  (TAB_FORM[tab] || []).forEach(id => { const v = $("#" + id).value; if (v !== "" && v !== DEFAULTS[id]) p.set(id, v); });
  if (tab === "plan") {
    ["domestic", "no-migration"].forEach(id => { if ($("#" + id).checked) p.set(id, "1"); });
    const on = alreadyOn(); if (on.length) p.set("already-on", on.join(","));
  }
  if (tab === "compare") { const devs = cmpDevices(); if (devs.length) p.set("cmp-devices", devs.join(",")); }
  history.replaceState(null, "", "#" + p.toString());
}
function restoreForm() {
  FORM.forEach(id => { if (params.has(id)) setValue(id, params.get(id)); });
  const devs = (params.get("cmp-devices") || "").split(",");
  [...$("#cmp-devices").options].forEach(o => { o.selected = devs.includes(o.value); });
  ["domestic", "no-migration"].forEach(id => { if (params.has(id)) $("#" + id).checked = true; });
  const on = (params.get("already-on") || "").split(",");
  document.querySelectorAll("#already-on input").forEach(x => { x.checked = on.includes(x.value); });
}
// the stacks a team already runs (no migration cost): checkboxes, one per stack of the catalog's devices
const alreadyOn = () => [...document.querySelectorAll("#already-on input:checked")].map(x => x.value);
// the framework choice: the task's frameworks (training) or serving engines (inference), from GET /api/frameworks
function fillFrameworks(keep) {
  const task = $("#task").value, fws = state.frameworks || [];
  const fit = fws.filter(f => task === "inference" ? f.engine != null : f.engine == null && f.tasks.includes(task));
  $("#framework").innerHTML = `<option value="" data-i18n="auto">${esc(t("auto"))}</option>` +
    fit.map(f => `<option value="${esc(f.id)}">${esc(f.name)}</option>`).join("");
  $("#framework").value = fit.some(f => f.id === keep) ? keep : "";
}

// ---- tabs (WAI-ARIA tabs: arrows, Home/End move between tabs)
const tabs = [...document.querySelectorAll(".tab")];
function selectTab(b, focus = false) {
  tabs.forEach(x => {
    const on = x === b;
    x.classList.toggle("active", on); x.setAttribute("aria-selected", String(on)); x.tabIndex = on ? 0 : -1;
  });
  document.querySelectorAll(".panel").forEach(p => { p.hidden = p.id !== "panel-" + b.dataset.tab; });
  if (focus) b.focus();
  if (b.dataset.tab === "value" && !state.value) loadValue();
  if (b.dataset.tab === "catalog" && !state.accs) loadCatalog();
  saveUrl();
}
tabs.forEach((b, i) => {
  b.addEventListener("click", () => selectTab(b));
  b.addEventListener("keydown", ev => {
    const j = {ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1}[ev.key];
    if (j === undefined) return;
    ev.preventDefault(); selectTab(tabs[(j + tabs.length) % tabs.length], true);
  });
});
// the toggle: labels switch at once; the server's sentences are asked for again (the request shown, not the form)
$("#lang-toggle").addEventListener("click", async () => {
  lang = lang === "zh" ? "en" : "zh"; localStorage.setItem("suanli-lang", lang);
  await loadMessages(lang); applyLang(); saveUrl();
  await Promise.all([
    state.planBody && runPlan(state.planBody), state.cmpBody && runCompare(state.cmpBody), state.tcoBody && runTco(state.tcoBody),
    state.migBody && runMigrate(state.migBody), state.checkBody && runCheck(state.checkBody), state.rvbBody && runRvb(state.rvbBody),
    state.detail && openDevice(state.detail.d.id, false)]);
});
// POST answers in the page's language, inputs named by the page's form labels (“输出 token”), not JSON fields
const pageUrl = path => `${path}?lang=${lang}&surface=web`;

function syncTask() {
  const serve = $("#task").value === "inference";
  document.querySelectorAll(".serve").forEach(e => { e.hidden = !serve; });
  document.querySelectorAll(".train").forEach(e => { e.hidden = serve; });
  fillFrameworks($("#framework").value);
}
$("#task").addEventListener("change", () => { syncTask(); saveUrl(); });
["#plan-form", "#compare-form", "#value-form", "#tco-form", "#mig-form", "#rvb-form"].forEach(f => $(f).addEventListener("change", saveUrl));

// ---- plan
function showPlanError(message, relax) {
  state.plan = null; // the previous result goes: replaced, not stacked
  $("#plan-results").hidden = true;
  $("#plans-table").innerHTML = ""; $("#plan-warnings").innerHTML = ""; $("#chart-memory").innerHTML = ""; $("#chart-pareto").innerHTML = ""; $("#side-by-side").innerHTML = "";
  const el = $("#plan-error");
  el.innerHTML = esc(message) + (relax && relax.length ? `<ul>${relax.map(r => `<li>${esc(r)}</li>`).join("")}</ul>` : "");
  el.hidden = false;
}
$("#plan-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  const num = id => { const v = $(id).value; return v === "" ? undefined : Number(v); };
  const task = $("#task").value;
  const body = {model: $("#model").value, task, objective: $("#objective").value, max_gpus: num("#max-gpus"), gpus: num("#gpus"),
    budget_cny: num("#budget"), deadline_hours: num("#deadline"), subsidy: num("#subsidy"), domestic_only: $("#domestic").checked,
    region: $("#region").value, offer_kinds: kindsOf("#kinds")};
  if ($("#no-migration").checked) body.allow_migration = false;
  if (task === "inference") {
    // concurrent users instead of a request rate: the API derives the rate (Little's law) and says so
    const users = num("#users");
    // output only when the user gave one (the field is empty, 256 its placeholder): the API then knows it was
    // not given and warns for a reasoning model, whose answers run far longer
    Object.assign(body, {input: num("#input"), output: num("#output"), ttft_s: num("#ttft"), tpot_s: num("#tpot")},
      users === undefined ? {requests_per_s: num("#rps")} : {concurrent_users: users});
    const period = num("#period");
    if (period !== undefined) body[$("#period-unit").value === "days" ? "days" : "hours"] = period;
  } else body.tokens = num("#tokens");
  if ($("#framework").value) body.framework = $("#framework").value;
  if ($("#precision").value) body.precision = $("#precision").value;
  if (alreadyOn().length) body.already_on = alreadyOn();
  Object.keys(body).forEach(k => body[k] === undefined && delete body[k]);
  saveUrl();
  await runPlan(body);
});
async function runPlan(body) {
  state.planBody = body; // asked again, in the other language, by the toggle
  const btn = $("#plan-btn"), prog = $("#progress"), t0 = performance.now();
  btn.disabled = true; prog.hidden = false; $("#plan-error").hidden = true;
  const tick = setInterval(() => { $("#progress-time").textContent = ((performance.now() - t0) / 1000).toFixed(1) + " s"; }, 100);
  try {
    state.plan = await api(pageUrl("/api/plan"), body);
    renderPlan(state.plan);
  } catch (e) {
    showPlanError(e.message, e.data && e.data.relax);
  } finally {
    clearInterval(tick); btn.disabled = false; prog.hidden = true;
  }
}

const GiBs = b => b == null ? "" : fmt(b / GiB);
const memCell = p => `${GiBs(p.memory_needed_bytes ?? p.memory_per_gpu_bytes)} / ${GiBs(p.memory_usable_bytes)} / ${fmt(p.memory_capacity_bytes / GiB, 0)}`;
const engineOf = p => esc(p.framework || "") + (p.engine && p.engine !== p.framework ? " / " + esc(p.engine) : "");
const calHours = p => fmt(p.calendar_hours ?? p.hours);  // a plan saved before the field: its hours
const migrationCell = p => fmt(p.migration_cost_cny, 0) + (p.migration_one_off_cny ? ` / ${fmt(p.migration_one_off_cny, 0)}` : "");
function offerCell(p) {
  const o = (state.offers || {})[p.offer] || {};
  return `${esc(p.offer)} <span class="muted">${esc(kindLabel(p.offer_kind || o.kind || "listing"))}</span>${intlTag(o.region)}`;
}
// serving as the CLI writes it: replicas × tp and the batch each replica runs (its request slots), then precision
// training as the CLI's plan writes it (cli/plan_cmd._layout): vpp, ep, ZeRO and recompute only where used
const layout = p => p.replicas != null ? `${p.replicas}×tp${p.tp}${p.ep > 1 ? `·ep${p.ep}` : ''} b${p.micro_batch} ${esc(p.precision)}`
  : `tp${p.tp}·pp${p.pp}${p.vpp > 1 ? "·vpp" + p.vpp : ""}·dp${p.dp}${p.ep > 1 ? "·ep" + p.ep : ""}${p.zero ? "·z" + p.zero : ""}` +
    `${p.recompute && p.recompute !== "none" ? "·" + esc(label("layout.recompute", p.recompute)) : ""}${p.precision !== "bf16" ? " " + esc(p.precision) : ""}` +
    `${p.offload_optimizer ? " " + t("layout.offload") : ""}${p.optimizer === "adamw8bit" ? " adamw8bit" : ""}`;

// every reason of a device (the planner's `reasons`, most fundamental first) on a line of its own, ended by the
// catalog's "why.sep", as the CLI prints them; a record saved before the list has the one sentence
function whyLines(w) {
  const rs = w.reasons && w.reasons.length ? w.reasons : [w.reason], sep = t("why.sep");
  return rs.map((x, i) => `<div class="why-line">${esc(x)}${i < rs.length - 1 ? esc(sep) : ""}</div>`).join("");
}
// the clauses of a sentence the API joined with plan.reason.with's separator ("; ", "；"), none split inside brackets
function clauses(s) {
  const sep = t("plan.reason.with").slice(8, -7), out = [];
  let d = 0, a = 0;
  for (let i = 0; i < s.length; i++) {
    d += "(（".includes(s[i]) - ")）".includes(s[i]);
    if (!d && s.startsWith(sep, i)) { out.push(s.slice(a, i)); a = i + sep.length; }
  }
  return [...out, s.slice(a)];
}
// a plan's reason: its first clause on view, the others and the warnings folded under it (a row was ~700 px tall)
function reasonCell(p) {
  const [head, ...rest] = clauses(p.reason), n = p.warnings.length;
  return esc(head) + (rest.length || n ? `<details class="more"><summary>${esc(t(n ? "plan_more_warn" : "plan_more", {n}))}</summary>` +
    rest.map(x => `<div>${esc(x)}</div>`).join("") + p.warnings.map(w => `<div class="warn">! ${esc(w)}</div>`).join("") + "</details>" : "");
}
function renderPlan(r) {
  $("#plan-error").hidden = true;
  $("#plan-results").hidden = false;
  const req = r.request || {}, serving = req.task === "inference";
  $("#plan-meta").textContent = `${r.model} · ${basis(req.region || "cn", req.offer_kinds)} · ${r.configurations_evaluated.toLocaleString()} ${t("configs")} ${(r.search_seconds * 1000).toFixed(0)} ms`;
  $("#plan-rate").hidden = !(serving && req.concurrent_users);
  $("#plan-rate").textContent = serving && req.concurrent_users ? t("derived_rate", {users: fmt(req.concurrent_users, 0), rps: fmt(req.requests_per_s, 3)}) : "";
  $("#plan-assumptions ul").innerHTML = (r.assumptions || []).map(a => `<li>${esc(a)}</li>`).join("");
  $("#plan-assumptions").hidden = !(r.assumptions || []).length;
  // about the whole request (a reasoning model at the default output length): above the plans
  $("#plan-warnings").innerHTML = (r.warnings || []).map(w => `<li>! ${esc(w)}</li>`).join("");
  $("#plan-warnings").hidden = !(r.warnings || []).length;
  // the calendar (migration, set-up, compute) beside the hours where it decided the plans: show_calendar_hours
  const cal = !!r.show_calendar_hours;
  // serving: rent per million output tokens at the planned load (cny_per_million_output_tokens, as `suanli plan`)
  const perM = serving ? (req.requests_per_s ? "cny_per_m_out_rate" : "cny_per_m_out_job") : null;
  const head = ["select", "rank", "device", "gpus", "layout", "framework", "mem_usable", ...(serving ? ["ttft", "tpot"] : []),
    "hours", ...(cal ? ["calendar_hours"] : []), "cost", "migration", "total", ...(perM ? [perM] : []), "offer", "reason"];
  const rows = r.plans.map(p => `<tr>${td("select", `<input type="checkbox" class="pick" value="${p.rank}" ${p.rank <= 2 ? "checked" : ""} aria-label="${esc(t("pick_plan", {rank: p.rank}))}">`)}
    ${td("rank", p.rank, "num")}${td("device", esc(devName(p.device, p.device_name)))}${td("gpus", p.gpus, "num")}${td("layout", layout(p))}${td("framework", engineOf(p))}
    ${td("mem_usable", memCell(p), "num")}
    ${serving ? td("ttft", fmt(p.ttft_s == null ? null : p.ttft_s * 1000, 0), "num") + td("tpot", fmt(p.tpot_s == null ? null : p.tpot_s * 1000, 1), "num") : ""}
    ${td("hours", fmt(p.hours), "num")}${cal ? td("calendar_hours", calHours(p), "num") : ""}${td("cost", grossNet(p.cost_cny, p.gross_cost_cny, p.subsidy), "num")}${td("migration", migrationCell(p), "num")}${td("total", fmt(p.total_cost_cny, 0), "num")}${perM ? td(perM, fmt(p.cny_per_million_output_tokens, 3), "num") : ""}
    ${td("offer", offerCell(p))}
    ${td("reason", reasonCell(p), "reason")}</tr>`).join("");
  $("#plans-table").innerHTML = r.plans.length
    ? `<thead><tr>${head.map(k => `<th scope="col">${t(k)}</th>`).join("")}</tr></thead><tbody>${rows}</tbody>`
    : `<tbody><tr><td class="error">${t("no_plan")}<ul class="relax">${(r.relax || []).map(x => `<li>${esc(x)}</li>`).join("")}</ul></td></tr></tbody>`;
  $("#why-table").innerHTML = `<tbody>${r.why_not.filter(w => (w.reason_i18n || {}).id !== "why.ranked_below" && w.reason !== "ranked below the plans shown").slice(0, 10)
    .map(w => `<tr>${td("device", esc(devName(w.device)))}${td("why", whyLines(w), "reason")}</tr>`).join("")}</tbody>`;
  $("#side-by-side").innerHTML = "";
  memoryChart($("#chart-memory"), r.plans);
  if (r.request && r.request.task === "inference") servingChart($("#chart-pareto"), r);
  else paretoChart($("#chart-pareto"), r);
}

$("#compare-plans-btn").addEventListener("click", () => {
  const picked = [...document.querySelectorAll(".pick:checked")].map(x => Number(x.value));
  const plans = (state.plan?.plans || []).filter(p => picked.includes(p.rank)).slice(0, 4);
  if (plans.length < 2) { $("#side-by-side").innerHTML = `<p class="error" role="alert">${t("pick_plans")}</p>`; return; }
  const serving = (state.plan.request || {}).task === "inference";
  const fields = [["device", p => esc(devName(p.device, p.device_name))], ["gpus", p => p.gpus], ["layout", layout], ["framework", engineOf],
    ["mem_usable", memCell], ["tokens_per_s", p => fmt(p.tokens_per_s, 0)], ...(serving ? [["load_tokens_per_s", p => fmt(p.load_output_tokens_per_s, 0)], ["ttft", p => fmt(p.ttft_s * 1000, 0)], ["tpot", p => fmt(p.tpot_s * 1000, 1)]] : []),
    ["setup_hours", p => fmt(p.setup_hours, 2)], ["hours", p => fmt(p.hours)],
    ...(state.plan.show_calendar_hours ? [["calendar_hours", calHours]] : []),
    ["cost", p => grossNet(p.cost_cny, p.gross_cost_cny, p.subsidy)], ["migration", migrationCell], ["total", p => fmt(p.total_cost_cny, 0)],
    ...(serving ? [[(state.plan.request || {}).requests_per_s ? "cny_per_m_out_rate" : "cny_per_m_out_job", p => fmt(p.cny_per_million_output_tokens, 3)]] : []),
    ["offer", offerCell], ["billing", p => esc(label("billing_unit", p.billing_unit))],
    ["scaling", p => fmt(p.scaling_efficiency, 2)], ["warnings", p => p.warnings.map(esc).join("<br>")]];
  $("#side-by-side").innerHTML = `<div class="table-wrap" tabindex="0"><table id="side-table" class="side">${fields.map(([k, f]) => `<tr><th scope="row">${t(k)}</th>${plans.map(p => `<td>${f(p)}</td>`).join("")}</tr>`).join("")}</table></div>`;
});

// ---- SVG charts: viewBox-scaled to the container, ticks at 1-2-5 steps with units
const svg = (w, h, inner, labelKey) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(t(labelKey))}" preserveAspectRatio="xMinYMin meet">${inner}</svg>`;

// whole: an axis of counts (replicas): whole-number steps only, so no tick label repeats (5 | 5 | 6 at a 0.2 step)
function linearTicks(lo, hi, n = 5, whole = false) {
  const raw = (hi - lo) / n || 1, mag = 10 ** Math.floor(Math.log10(raw));
  const steps = [1, 2, 2.5, 5, 10].map(m => m * mag).filter(s => !whole || (s >= 1 - 1e-9 && Math.abs(s - Math.round(s)) < 1e-9));
  const step = steps.find(s => s >= raw) || Math.max(whole ? 1 : 0, 10 * mag);
  const out = []; for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}
function scale(vals, a, b, log, whole = false) {
  let lo = Math.min(...vals), hi = Math.max(...vals);
  if (log) { lo = Math.log10(Math.max(lo, 1e-9)); hi = Math.log10(Math.max(hi, 1e-9)); }
  const span = hi - lo || (log ? 0.5 : Math.abs(hi) || 1), l0 = lo - span * 0.1, l1 = hi + span * 0.1;
  const tr = v => (log ? Math.log10(Math.max(v, 1e-9)) : v);
  const f = v => a + (b - a) * (tr(v) - l0) / (l1 - l0);
  f.ticks = () => {
    if (!log) return linearTicks(l0, l1, 5, whole);
    const lin0 = 10 ** l0, lin1 = 10 ** l1;
    for (const ms of [[1], [1, 2, 5], [1, 1.5, 2, 3, 5, 7]]) {
      const out = [];
      for (let e = Math.floor(l0) - 1; e <= Math.ceil(l1); e++) ms.forEach(m => { const v = m * 10 ** e; if (v >= lin0 && v <= lin1) out.push(v); });
      if (out.length >= 3) return out.length > 9 ? out.filter((_, i) => i % Math.ceil(out.length / 8) === 0) : out;
    }
    return linearTicks(lin0, lin1, 4).filter(v => v > 0);
  };
  return f;
}
function axes(x, y, W, H, L, B, T, R, xTitle, yTitle, xd = 2, yd = 0) {
  let g = `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#767676"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#767676"/>`;
  x.ticks().forEach(v => { g += `<line x1="${x(v)}" x2="${x(v)}" y1="${H - B}" y2="${H - B + 4}" stroke="#767676"/><text x="${x(v)}" y="${H - B + 16}" text-anchor="middle">${fmt(v, xd)}</text>`; });
  y.ticks().forEach(v => { g += `<line x1="${L - 4}" x2="${L}" y1="${y(v)}" y2="${y(v)}" stroke="#767676"/><line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/><text x="${L - 6}" y="${y(v) + 4}" text-anchor="end">${fmt(v, yd)}</text>`; });
  g += `<text x="${(L + W - R) / 2}" y="${H - 6}" text-anchor="middle">${esc(xTitle)}</text>`;
  g += `<text transform="translate(14 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">${esc(yTitle)}</text>`;
  return g;
}

function memoryChart(el, plans) {
  const items = [...new Set(plans.flatMap(p => Object.keys(p.breakdown_bytes || {})))].filter(k => k !== "kv_cache_pool_unused");
  if (!plans.length) { el.innerHTML = ""; return; }
  const W = 600, L = 180, R = 20, top = 10, H = 40 + plans.length * 34;
  const max = Math.max(...plans.map(p => Math.max(p.memory_capacity_bytes, Object.values(p.breakdown_bytes || {}).reduce((a, b) => a + b, 0)))) / GiB || 1;
  const x = v => L + (W - L - R) * v / max;
  let g = "";
  plans.forEach((p, i) => {
    const y = top + i * 34; let acc = 0;
    g += `<text x="${L - 6}" y="${y + 15}" text-anchor="end">${esc(p.rank + ". " + devName(p.device, p.device_name))}</text>`;
    items.forEach((k, j) => {
      const v = ((p.breakdown_bytes || {})[k] || 0) / GiB; if (!v) return;
      g += `<rect x="${x(acc)}" y="${y}" width="${Math.max(0.5, x(acc + v) - x(acc))}" height="22" fill="${COLORS[j % COLORS.length]}"><title>${esc(label("memory", k) + t("label_sep"))}${v.toFixed(2)} GiB</title></rect>`;
      acc += v;
    });
    const cx = x(p.memory_capacity_bytes / GiB);
    g += `<line x1="${cx}" x2="${cx}" y1="${y - 3}" y2="${y + 25}" stroke="#000" stroke-dasharray="3 2"><title>${t("capacity")}</title></line>`;
  });
  const ay = top + plans.length * 34 + 4;
  linearTicks(0, max, 4).forEach(v => { g += `<text x="${x(v)}" y="${ay + 12}" text-anchor="middle">${fmt(v, 0)}</text>`; });
  g += `<text x="${W - R}" y="${ay + 26}" text-anchor="end">GiB</text>`;
  el.innerHTML = svg(W, H, g, "chart_memory_label") + `<div class="legend">${items.map((k, j) => `<span><i style="background:${COLORS[j % COLORS.length]}"></i>${esc(label("memory", k))}</span>`).join("")}<span>┆ ${t("capacity")}</span></div>` +
    plans.filter(p => p.breakdown_note).map(p => `<div class="warn">${esc(p.rank + ". " + devName(p.device, p.device_name) + t("label_sep"))}${esc(p.breakdown_note)}</div>`).join("");
}

// one point per configuration, cost on one basis: the front's cost_cny is rent + migration share (search._pareto),
// a plan's total_cost_cny the same sum; devices by the name the tables use
const frontPoint = p => ({...p, total: p.cost_cny, name: devName(p.device)});
const planPoint = p => ({...p, total: p.total_cost_cny ?? p.cost_cny, name: devName(p.device, p.device_name)});
// a front point that is none of the plans shown (same device, cards, total): set aside by the evidence check or
// ranked below, drawn hollow, its why-not line in the tooltip
const shownAsPlan = (r, p) => r.plans.some(q => q.device === p.device && q.gpus === p.gpus && Math.abs((q.total_cost_cny ?? q.cost_cny) - p.total) <= Math.max(1, p.total * 1e-6));
const setAside = r => r.pareto.map(frontPoint).filter(p => p.total > 0 && !shownAsPlan(r, p));
// a front point not planned: its why-not row, else the plan on its device that passed it over (matched on the total)
function frontWhy(r, p) {
  const why = (r.why_not || []).find(w => w.device === p.device), on = r.plans.filter(q => q.device === p.device);
  if (why) return t("why_not") + " " + why.reason;
  for (const q of on) {
    const i = (q.warnings_i18n || []).findIndex(w => /_passed_over/.test(w?.id) && Math.abs(w.params.cost - p.total) < 1);
    if (i >= 0) return t("front_passed_over", {rank: q.rank, why: q.warnings[i]});
  }
  return on.length ? t("front_other_layout", {rank: on[0].rank}) : t("why_not");
}
function frontDot(r, p, cx, cy, what) {
  const inTable = shownAsPlan(r, p);
  return `<circle class="${inTable ? "front" : "front set-aside"}" cx="${cx}" cy="${cy}" r="${inTable ? 3.5 : 4.5}" fill="${inTable ? COLORS[1] : "#fff"}" stroke="${COLORS[1]}" stroke-width="${inTable ? 0 : 2}"><title>${esc(p.gpus + "× " + p.name)}: ${what}${inTable ? "" : " — " + esc(frontWhy(r, p))}</title></circle>`;
}
const planMark = (p, cx, cy) => `<rect class="plan" x="${cx - 4}" y="${cy - 4}" width="8" height="8" fill="${COLORS[0]}"><title>${esc(p.rank + ". " + p.gpus + "× " + p.name)}: ¥${fmt(p.total, 0)}</title></rect><text x="${cx + 6}" y="${cy - 5}">${p.rank}</text>`;
const chartLegend = r => `<div class="legend"><span><i style="background:${COLORS[1]}"></i>${t("pareto")}</span><span><i style="background:${COLORS[0]}"></i>${t("plans")}</span>` +
  (setAside(r).length ? `<span class="set-aside-legend"><i style="background:#fff;border:2px solid ${COLORS[1]};border-radius:50%"></i>${t("pareto")} · ${t("why_not")} ${setAside(r).map(p => esc(p.gpus + "× " + p.name)).join(", ")}</span>` : "") + "</div>";

function paretoChart(el, r) {
  $("#cap-pareto").textContent = t("chart_pareto");
  // one y for both: the total (front cost_cny = rent + migration share = a plan's total_cost_cny)
  const pts = [...r.pareto.map(frontPoint), ...r.plans.map(planPoint)].filter(p => p.hours > 0 && p.total > 0);
  if (!pts.length) { el.innerHTML = ""; return; }
  const W = 560, H = 320, L = 72, B = 44, T = 12, R = 20;
  const x = scale(pts.map(p => p.hours), L, W - R, true), y = scale(pts.map(p => p.total), H - B, T, true);
  let g = axes(x, y, W, H, L, B, T, R, t("hours_axis"), t("cost_axis"));
  const front = r.pareto.map(frontPoint).filter(p => p.hours > 0 && p.total > 0).sort((a, b) => a.hours - b.hours);
  if (front.length) g += `<polyline fill="none" stroke="${COLORS[1]}" stroke-width="2" points="${front.map(p => `${x(p.hours)},${y(p.total)}`).join(" ")}"/>`;
  front.forEach(p => { g += frontDot(r, p, x(p.hours), y(p.total), `${esc(t("hours_n", {n: fmt(p.hours)}))}, ¥${fmt(p.total, 0)}`); });
  r.plans.map(planPoint).filter(p => p.hours > 0 && p.total > 0).forEach(p => { g += planMark(p, x(p.hours), y(p.total)); });
  el.innerHTML = svg(W, H, g, "chart_pareto_label") + chartLegend(r);
}

// serving plans all run for the same hours: cost against replicas (or TPOT when every plan has one replica)
function servingChart(el, r) {
  const pts = [...r.pareto.map(frontPoint), ...r.plans.map(planPoint)].filter(p => p.total > 0);
  if (!pts.length) { el.innerHTML = ""; return; }
  const byReplicas = new Set(pts.map(p => p.replicas || 1)).size > 1;
  const xv = p => byReplicas ? (p.replicas || 1) : (p.tpot_s || 0) * 1000;
  $("#cap-pareto").textContent = t("chart_serving");
  const W = 560, H = 320, L = 72, B = 44, T = 12, R = 20;
  const x = scale(pts.map(xv), L, W - R, false, byReplicas), y = scale(pts.map(p => p.total), H - B, T, true);
  let g = axes(x, y, W, H, L, B, T, R, byReplicas ? t("replicas_axis") : t("tpot_axis"), t("cost_axis"), byReplicas ? 0 : 1);
  r.pareto.map(frontPoint).filter(p => p.total > 0).forEach(p => { g += frontDot(r, p, x(xv(p)), y(p.total), `¥${fmt(p.total, 0)}`); });
  r.plans.map(planPoint).filter(p => p.total > 0).forEach(p => { g += planMark(p, x(xv(p)), y(p.total)); });
  el.innerHTML = svg(W, H, g, "chart_pareto_label") + chartLegend(r);
}

async function loadValue() {
  const q = new URLSearchParams({region: $("#val-region").value});
  kindsOf("#val-kinds").forEach(k => q.append("offer_kinds", k));
  $("#val-error").hidden = true; $("#val-btn").disabled = true;
  try { state.value = await api("/api/value?" + q); renderValue(state.value); }
  catch (e) { state.value = null; $("#chart-value").innerHTML = ""; $("#val-meta").textContent = ""; $("#val-error").textContent = e.message; $("#val-error").hidden = false; }
  finally { $("#val-btn").disabled = false; }
}
$("#value-form").addEventListener("submit", ev => { ev.preventDefault(); saveUrl(); loadValue(); });
// a bar's price basis (card_hour_basis)
const valueBasis = r => r.card_hour_basis === "hourly" ? t("value_basis_hourly")
  : t("value_basis_full_use", {billing_unit: label("billing_unit", r.card_hour_billing_unit)});
// a bar's tooltip: the peak ÷ the price in compare's words (cardHour: 2.57（按月） where a longer billing unit priced it)
function renderValue(rows) {
  $("#val-meta").textContent = basis($("#val-region").value, kindsOf("#val-kinds")) +
    (rows.some(r => r.international) ? " · " + t("international_offers", {offers: rows.filter(r => r.international).map(r => r.offer || r.device).join(", ")}) : "");
  if (!rows.length) { $("#chart-value").innerHTML = `<p class="muted">${t("no_value")}</p>`; return; }
  const top = rows.slice(0, 20), W = 820, L = 190, R = 190, H = 36 + top.length * 22;
  const max = Math.max(...top.map(r => r.effective_tflops_per_cny_hour), 1);
  let g = "";
  top.forEach((r, i) => {
    const y = 6 + i * 22, w = (W - L - R) * r.effective_tflops_per_cny_hour / max;
    g += `<text x="${L - 6}" y="${y + 13}" text-anchor="end">${esc(devName(r.device, r.device_name))}${r.international ? " 🌐" : ""}</text><rect x="${L}" y="${y}" width="${w}" height="16" fill="${r.domestic ? COLORS[3] : COLORS[0]}"><title>${fmt(r.dense_tflops)} TFLOPS ÷ ${cardHour(r)} ${esc(t("cny_h"))}</title></rect><text x="${L + w + 4}" y="${y + 13}">${fmt(r.effective_tflops_per_cny_hour, 1)} <tspan class="muted">${esc(valueBasis(r))}</tspan></text>`;
  });
  const ay = 10 + top.length * 22;
  linearTicks(0, max, 4).forEach(v => { g += `<text x="${L + (W - L - R) * v / max}" y="${ay + 12}" text-anchor="middle">${fmt(v, 0)}</text>`; });
  $("#chart-value").innerHTML = svg(W, H, g, "chart_value_label") + `<div class="legend"><span><i style="background:${COLORS[3]}"></i>${t("domestic_c")}</span><span><i style="background:${COLORS[0]}"></i>${t("foreign_c")}</span> · ${t("compare.col.tflops_per_cny_hour")}${rows.some(r => r.international) ? " · 🌐 " + t("international") : ""}</div>`;
}

// ---- rent cost (TCO) per offer
$("#tco-form").addEventListener("submit", async ev => {
  ev.preventDefault(); saveUrl();
  const body = {gpu: $("#tco-gpu").value, hours: Number($("#tco-hours").value), gpus: Number($("#tco-gpus").value || 1),
    region: $("#tco-region").value, offer_kinds: kindsOf("#tco-kinds")};
  if ($("#tco-subsidy").value !== "") body.subsidy = Number($("#tco-subsidy").value);
  // the job's throughput: the API adds ¥ per million tokens to every row (the column shows when it does)
  if ($("#tco-tps").value !== "") body.tokens_per_s = Number($("#tco-tps").value);
  await runTco(body);
});
async function runTco(body) {
  state.tcoBody = body;
  $("#tco-error").hidden = true; $("#tco-btn").disabled = true;
  try { state.tco = await api(pageUrl("/api/tco"), body); renderTco(state.tco); }
  catch (e) { state.tco = null; $("#tco-table").innerHTML = ""; $("#tco-meta").textContent = ""; $("#tco-subsidy-note").hidden = true; $("#tco-error").textContent = e.message; $("#tco-error").hidden = false; }
  finally { $("#tco-btn").disabled = false; }
}
function renderTco(rows) {
  // each row carries the request's basis (region, offer_kinds) and the offer's own `international` flag
  $("#tco-meta").textContent = rows.length ? basis(rows[0].region, rows[0].offer_kinds) : "";
  const where = r => regionCell(((state.offers || {})[r.offer] || {}).region || (r.international ? "" : "cn"), r.international);
  // two prices per card-hour as the CLI's tco (list: full use of a 730-h month; job: bill ÷ cards ÷ hours); row notes
  const perMillion = rows.some(r => r.cny_per_million_tokens != null), b = state.tcoBody || {};
  const head = ["provider", "offer", "kind", "region", "billing", "cost", "tco.col.list_cny_per_card_hour",
    "tco.col.effective_cny_per_card_hour", ...(perMillion ? ["tco.col.cny_per_million_tokens"] : []), "date", "tco.col.notes"];
  const notes = r => (r.notes || []).map(n => `<div class="cmp-note">${esc(n)}</div>`).join("");
  $("#tco-table").innerHTML = `<caption class="muted">${esc(t("tco_prices", {gpus: b.gpus || 1, hours: b.hours}))}</caption>` +
    `<thead><tr>${head.map(k => `<th scope="col">${esc(t(k))}</th>`).join("")}</tr></thead><tbody>` +
    rows.map(r => `<tr${r.one_job === false ? ' class="separate"' : ""}>${td("provider", esc(r.provider))}${td("offer", esc(r.offer))}${td("kind", esc(kindLabel(r.kind)))}${td("region", where(r))}${td("billing", esc(label("billing_unit", r.billing_unit)))}${td("cost", (r.cost_cny_max ? span(grossNet(r.cost_cny, r.gross_cost_cny, r.subsidy), fmt(r.cost_cny_max, 0)) : grossNet(r.cost_cny, r.gross_cost_cny, r.subsidy)), "num")}${td("tco.col.list_cny_per_card_hour", fmt(r.list_cny_per_card_hour, 2), "num")}${td("tco.col.effective_cny_per_card_hour", fmt(r.effective_cny_per_card_hour, 2), "num")}${perMillion ? td("tco.col.cny_per_million_tokens", fmt(r.cny_per_million_tokens, 2), "num") : ""}${td("date", esc(r.date) + (r.stale ? `<div class="warn">${esc(t("stale", {date: r.date}))}</div>` : ""))}${td("tco.col.notes", notes(r), "cmp-text")}</tr>`).join("") + "</tbody>";
  // the subsidy as the CLI's tco says it under its table: the first row's gross → net, and which figures are after it
  const sub = rows.find(r => r.subsidy_note);
  $("#tco-subsidy-note").hidden = !sub;
  $("#tco-subsidy-note").textContent = sub ? t("tco_subsidy", {line: sub.subsidy_note}) : "";
}

// ---- compare
$("#compare-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  const devices = cmpDevices();
  saveUrl();
  $("#cmp-error").hidden = true;
  if (devices.length < 2 || devices.length > 4) { state.cmpBody = null; cmpFail(t("pick_devices")); return; }
  const task = $("#cmp-task").value;
  const body = {model: $("#cmp-model").value, task, gpus: Number($("#cmp-gpus").value || 1), devices,
    region: $("#cmp-region").value, offer_kinds: kindsOf("#cmp-kinds")};
  // serving a rate or for a period (hours or days, as plan) bills plan's serving period (a rate alone: the default
  // month); the tokens to generate then do not set the hours
  const serve = task === "inference", val = id => serve && $(id).value !== "" ? Number($(id).value) : undefined;
  // concurrent users instead of a request rate, as the plan form: the API derives the rate (Little's law) and says so
  const users = val("#cmp-users"), rate = users === undefined ? val("#cmp-rps") : undefined, period = val("#cmp-period");
  if (users !== undefined) body.concurrent_users = users;
  if (rate !== undefined) body.requests_per_s = rate;
  if (period !== undefined) body[$("#cmp-period-unit").value === "days" ? "days" : "hours"] = period;
  if (rate === undefined && users === undefined && period === undefined && $("#cmp-tokens").value) body.tokens = Number($("#cmp-tokens").value);
  // serving targets and request lengths: empty is not sent, so the answer says the default it assumed
  [["#cmp-tpot", "tpot_s"], ["#cmp-ttft", "ttft_s"], ["#cmp-input", "input"], ["#cmp-output", "output"]]
    .forEach(([id, k]) => { const v = val(id); if (v !== undefined) body[k] = v; });
  if (serve && $("#cmp-precision").value) body.precision = $("#cmp-precision").value;
  await runCompare(body);
});
function cmpDevices() { return [...$("#cmp-devices").selectedOptions].map(o => o.value); }
// compare's tokens: trained on (training), generated (serving: output tokens in all, which the hours and bill follow)
function syncCmpTask() {
  const serve = $("#cmp-task").value === "inference";
  $("#cmp-tokens-label").textContent = t(serve ? "cmp_tokens_serve" : "tokens");  // per request: the output field
  $("#cmp-tokens-label").dataset.i18n = serve ? "cmp_tokens_serve" : "tokens";
  document.querySelectorAll(".cmp-serve").forEach(e => { e.hidden = !serve; });
}
$("#cmp-task").addEventListener("change", syncCmpTask);
function cmpFail(m) { state.compare = null; $("#cmp-table").innerHTML = ""; $("#cmp-meta").textContent = ""; $("#cmp-error").textContent = m; $("#cmp-error").hidden = false; }
async function runCompare(body) {
  state.cmpBody = body;
  $("#cmp-error").hidden = true; $("#cmp-btn").disabled = true;
  try { state.compare = await api(pageUrl("/api/compare"), body); renderCompare(state.compare); }
  catch (e) { cmpFail(e.message); }
  finally { $("#cmp-btn").disabled = false; }
}
// a row's layout as the API labels it (`… · vllm-ascend`): its framework named once, added only where the label has it not
// ¥ per card-hour; one from a longer billing unit names it, in the CLI's words (cli.card_hour_by: 2.57（按月）)
const cardHour = r => r.card_hour_billing_unit && r.card_hour_billing_unit !== "hour" && r.cny_per_card_hour != null
  ? esc(t("cli.card_hour_by", {price: r.cny_per_card_hour, billing_unit: label("billing_unit", r.card_hour_billing_unit)})) : fmt(r.cny_per_card_hour, 2);
const cmpLayout = l => { const fw = l.framework || l.engine || ""; return (l.label || "") + (fw && !(l.label || "").includes(fw) ? " · " + fw : ""); };
function renderCompare(rows) {
  // memory as plan and the CLI's compare count it (needed / usable / capacity, memCell); a pre-allocating engine's
  // pool (vLLM gpu_memory_utilization: what the card shows in use) is a note under it, in the answer's language
  const dash = "—", fits = r => r.fits !== false && r.runs !== false;
  const serving = rows.some(r => r.tpot_s != null || r.serving_rule);
  // the API's notes on each row (the CLI's compare prints them under the table)
  const notes = r => [r.layout_note && !(r.served && r.served.note) ? r.layout_note : null, r.capacity_note, ...(r.notes || []), r.memory_warning, r.memory_likely_short,
    r.precision_note, r.calibration, r.evidence, periods.length > 1 ? r.period_note : null].filter(Boolean).map(n => `<div class="cmp-note">${esc(n)}</div>`).join("") +
    offerWarnings(r);
  const f = [["device", r => esc(devName(r.device, r.device_name))],
    ["layout", r => esc(cmpLayout(r.layout || {}))],
    ["mem_usable", r => memCell(r) + (r.memory_pool_note ? `<div class="muted pool-note">${esc(r.memory_pool_note)}</div>` : "")],
    ["fits", r => r.fits ? (r.likely_short ? `<span class="conflict">${esc(r.fit_label)}</span>` : r.fits_tight ? esc(r.fit_label) : t("yes")) : `<span class="conflict">${t("no")}</span>`], ["tokens_per_s", r => fits(r) ? fmt(r.tokens_per_s, 0) : `<span class="muted">${esc(t(r.fits === false ? "cmp.speed_no_fit" : "cmp.speed_not_estimable"))}</span>`],
    ...(serving ? [["tpot", r => fits(r) && r.tpot_s != null ? fmt(r.tpot_s * 1000, 1) : dash]] : []),
    // a request rate: tokens/s above is the layout's capacity; this is the rate served at its run batch
    ...(rows.some(r => r.served) ? [["served", r => r.served ? esc(r.served.note) : esc(r.layout_note || "")]] : []),
    ["hours", r => r.hours == null ? dash : fmt(r.hours, 2)],
    ["cost", r => r.cost_cny == null ? dash : fmt(r.cost_cny, 0)], ["cny_h", r => cardHour(r)], ["job_cny_h", r => r.job_cny_per_card_hour == null ? dash : fmt(r.job_cny_per_card_hour, 2)],
    // serving: the bill per million output tokens at the rate (or, with none, the capacity above), the API's basis
    ...(serving ? [[rows.some(r => r.cny_per_million_basis === "capacity") ? "cny_per_m_out_capacity" : "cny_per_m_out_rate", r => r.cny_per_million_output_tokens == null ? dash : fmt(r.cny_per_million_output_tokens, 3)]] : []),
    ["compare.col.tflops_per_cny_hour", r => fmt(r.effective_tflops_per_cny_hour, 1)], ["scaling", r => fmt(r.scaling_efficiency, 2)],
    ["offer", r => r.offer_facts ? `${esc(r.offer_facts.offer)} <span class="muted">${esc(kindLabel(r.offer_facts.kind))}</span>${intlTag(r.offer_facts.region)}${r.offer_facts.stale ? `<div class="warn">${esc(t("stale", {date: r.offer_facts.date}))}</div>` : ""}`
      : (r.no_price ? `<span class="muted">${esc(r.no_price)}</span>` : "")],
    ["note", notes]];
  // the serving rule (the TPOT assumed when none was given, the request lengths) is one for all rows: under the basis
  // the serving period the hours and cost are billed for (plan's sentence): once under the basis when the rows agree,
  // else in each row's notes
  const periods = [...new Set(rows.map(r => r.period_note).filter(Boolean))];
  $("#cmp-meta").textContent = rows.length ? basis(rows[0].region, rows[0].offer_kinds) + (rows[0].serving_rule ? " · " + rows[0].serving_rule : "") +
    (periods.length === 1 ? " · " + t("plan.assumed", {text: periods[0]}) : "") : "";
  $("#cmp-table").innerHTML = f.map(([k, g]) => `<tr data-row="${k}"><th scope="row">${t(k)}</th>${rows.map(r => `<td class="${k === "note" || k === "layout" ? "cmp-text" : "num"}">${g(r) || dash}</td>`).join("")}</tr>`).join("");
}

// ---- migrate: what the move costs (POST /api/migrate, as `suanli migrate cost`)
$("#mig-form").addEventListener("submit", async ev => {
  ev.preventDefault(); saveUrl();
  const body = {model: $("#mig-model").value, task: $("#mig-task").value, from_gpu: $("#mig-from").value,
    to_gpu: $("#mig-to").value, region: $("#mig-region").value, offer_kinds: kindsOf("#mig-kinds")};
  // an empty spend is not sent: the API uses its assumed default and its answer says so (monthly_spend_default)
  if ($("#mig-spend").value !== "") body.monthly_spend = Number($("#mig-spend").value);
  if ($("#mig-gpus").value !== "") body.gpus = Number($("#mig-gpus").value);  // the cards each side's speed is for
  // the weeks both sides are paid side by side; empty: the API's assumed 2 weeks, said so in the one-off's items
  if ($("#mig-parallel").value !== "") body.parallel_weeks = Number($("#mig-parallel").value);
  if (migUses().length) body.uses = migUses();
  if (body.task === "inference") {  // compare's serving targets: each side is compare's row for them
    if ($("#mig-precision").value) body.precision = $("#mig-precision").value;
    [["#mig-rps", "requests_per_s"], ["#mig-tpot", "tpot_s"], ["#mig-ttft", "ttft_s"], ["#mig-input", "input"], ["#mig-output", "output"]]
      .forEach(([id, k]) => { if ($(id).value !== "") body[k] = Number($(id).value); });
  }
  await runMigrate(body);
});
function syncMigTask() { const serve = $("#mig-task").value === "inference"; document.querySelectorAll(".mig-serve").forEach(e => { e.hidden = !serve; }); }
$("#mig-task").addEventListener("change", syncMigTask);
function migFail(m) { state.mig = null; $("#mig-table").innerHTML = ""; $("#mig-notes").innerHTML = ""; $("#mig-meta").textContent = ""; $("#mig-error").textContent = m; $("#mig-error").hidden = false; }
async function runMigrate(body) {
  state.migBody = body;
  $("#mig-error").hidden = true; $("#mig-btn").disabled = true;
  try { state.mig = await api(pageUrl("/api/migrate"), body); renderMigrate(state.mig); }
  catch (e) { migFail(e.message); }
  finally { $("#mig-btn").disabled = false; }
}
// ---- will it run on Ascend? (POST /api/migrate/check, as `suanli migrate check`): the form's model and task
const migUses = () => $("#mig-uses").value.split(/[,，\s]+/).map(x => x.trim()).filter(Boolean);
$("#mig-check-btn").addEventListener("click", async () => {
  saveUrl();
  const body = {model: $("#mig-model").value, task: $("#mig-task").value};
  if (migUses().length) body.uses = migUses();
  await runCheck(body);
});
async function runCheck(body) {
  state.checkBody = body;
  $("#mig-check-error").hidden = true; $("#mig-check-btn").disabled = true; $("#mig-check-progress").hidden = false;
  try { state.check = await api(pageUrl("/api/migrate/check"), body); renderCheck(state.check); }
  catch (e) { state.check = null; $("#mig-check").innerHTML = ""; $("#mig-check-error").textContent = e.message; $("#mig-check-error").hidden = false; }
  finally { $("#mig-check-btn").disabled = false; $("#mig-check-progress").hidden = true; }
}
function renderCheck(r) {
  $("#mig-check-error").hidden = true;
  const cls = {"npu-native": "", "needs-port": "conflict"}[r.verdict] ?? "warn";  // cpu-fallback, needs-check: amber
  const trace = r.trace || {}, w = r.migration_weeks;
  const head = esc(t("cli.mig.check_title", {model: r.model, task: t("cli.mig.task." + r.task), version: r.torch_npu_version,
    device: trace.device, shrunk: trace.shrunk && Object.keys(trace.shrunk).length ? t("cli.mig.shrunk") : ""}));
  const li = x => `<li>${x}</li>`;
  const fallback = Object.entries({...(r.fallback_ops || {}), ...(r.non_aten_ops || {})});
  $("#mig-check").innerHTML = `<h3>${head}</h3>` +
    `<p class="verdict"><strong class="${cls}">${esc(t("cli.mig.verdict", {verdict: t("verdict." + r.verdict)}))}</strong> — ${esc(r.verdict_text)}</p>` +
    (fallback.length ? `<p class="warn">${esc(t("cli.mig.fallback"))}${fallback.map(([k, v]) => esc(`${k} ×${v}`)).join(", ")}</p>` : "") +
    `<p>${esc(w ? t("mig.effort.check", {lo: w[0], hi: w[1], n: r.migration_engineers, plo: r.migration_person_weeks[0],
      phi: r.migration_person_weeks[1], basis: r.migration_basis}) : t("cli.mig.effort", {basis: r.migration_basis}))}</p>` +
    `<ul>` + (r.adapted_lists || []).map(a => li(esc(t("cli.mig.adapted", {name: lang === "zh" && a.name_zh ? a.name_zh : a.name,
      state: t({true: "cli.mig.listed", false: "cli.mig.not_listed"}[String(a.listed)] || "cli.mig.list_unknown")})))).join("") +
    (r.libraries || []).map(l => li(`<strong>${esc(l.id)}</strong>: ${esc(l.message)}`)).join("") + `</ul>` +
    (r.warnings.length ? `<ul class="warn">${r.warnings.map(x => li(esc(x))).join("")}</ul>` : "") +
    `<p class="muted">${esc(t("check_stats", {ops: trace.distinct_ops, calls: trace.op_calls}))}</p>`;
}
// what an offer leaves out of its card (a 910B without its variant): the API's offer_warnings as "! " lines
const offerWarnings = r => (r.offer_warnings || []).map(w => `<div class="warn offer-warning">! ${esc(w)}</div>`).join("");
const yuan = v => v != null && v < 0 ? "-¥" + fmt(-v, 0) : "¥" + fmt(v, 0);  // the sign first (i18n.yuan): -¥20,000
function renderMigrate(r) {
  $("#mig-error").hidden = true;
  $("#mig-meta").textContent = fill(t("cli.mig.header"), {model: r.model, src: devName(r.from), dst: devName(r.to),
    stack: label("stack", r.stack), reason: r.weeks_reason}) + " · " + basis(r.region, r.offer_kinds);
  const [lo, hi] = r.calendar_weeks, [clo, chi] = r.one_off_cost_cny, pb = r.payback_months;
  const rows = [
    ["mig.item.task", r.workload_note ? esc(r.workload_note) : esc(t("mig.value.task_given", {task: label("task", r.task)}))],
    ["mig.item.migration", esc(t("mig.value.effort", {lo, hi, n: r.engineers, plo: r.person_weeks[0], phi: r.person_weeks[1]}))],
    // the spend the saving is a share of: the buyer's, or the assumed default, said as assumed
    ["mig.item.monthly_spend", esc(r.monthly_spend_note) + (r.monthly_spend_default ? `<div class="warn">${esc(t("mig_spend_assumed"))}</div>` : "")],
    // the new side billed as plan bills an offer (its unit, minimum order, whole instances), as the CLI's row says it
    ...Object.values(r.derived || {}).filter(d => d && typeof d === "object" && d.monthly_rent)
      .map(d => ["mig.item.new_bill", esc(d.monthly_rent.note)]),
    ["mig.item.one_off", span(yuan(clo), yuan(chi))],
    // what the one-off adds up, as the CLI's rows under it: labour, the new side's test instance, the parallel run
    // (its length assumed unless given, said in its note) — plan.cost.migration_one_off
    ...((r.one_off_items || []).length > 1 ? r.one_off_items.map(i => [`mig.item.one_off_item.${i.item}`,
      span(yuan(i.cost_cny[0]), yuan(i.cost_cny[1])) + " — " + esc(i.note), "sub"]) : []),
    // a negative saving as the CLI says it: the bill rises (mig.value.rise)
    ["mig.item.monthly_saving", r.monthly_saving_cny < 0 ? esc(t("mig.value.rise", {rise: -r.monthly_saving_cny})) : yuan(r.monthly_saving_cny)],
    ["mig.item.payback", esc(pb ? t("mig.value.months", {lo: pb[0], hi: pb[1]}) : t("mig.value.never"))]];
  for (const [dev, d] of Object.entries(r.derived || {})) {
    if (d === null || typeof d !== "object") { rows.push(["mig.item.ratio", fmt(d, 2)]); continue; }
    const lay = d.workload || {}, n = lay.gpus ?? 8;
    let v = t("mig.value.device_8", {tps: d.tokens_per_s_8_cards, cny: d.cny_per_card_hour, offer: d.offer});
    if (lay.replicas) v += t("mig.value.serving_layout", {tp: lay.tp, replicas: lay.replicas, batch: lay.batch});
    if (lay.served_batch) v += t("mig.value.serves", {rps: lay.requests_per_s, batch: lay.served_batch});
    if (lay.layout_rule) v += t("mig.value.training_layout", {tp: lay.tp, pp: lay.pp, zero: lay.zero, batch: lay.batch, recompute: label("recompute", lay.recompute)});
    if (lay.layout_rule && (lay.offload_optimizer || lay.optimizer === "adamw8bit")) v += " — " + lay.layout_rule;  // plan's memory-saving measure
    if (d.layout_note) v += " — " + d.layout_note;
    const k = d.gpus_asked || 8;  // --gpus, or a rate's bill's cards
    rows.push([t(n === k ? "mig.item.device_gpus" : "mig.item.device_fewer", {device: devName(dev), gpus: n, asked: k}), esc(v) + offerWarnings(d)]);
  }
  rows.push(["mig.item.verdict", `<strong>${esc(r.verdict)}</strong>`]);
  $("#mig-table").innerHTML = `<thead><tr><th scope="col">${esc(t("col.item"))}</th><th scope="col">${esc(t("value"))}</th></tr></thead><tbody>` +
    rows.map(([k, v, cls]) => `<tr${cls ? ` class="${cls}"` : ""}><th scope="row">${esc(t(k).trim())}</th>${td("value", v)}</tr>`).join("") + "</tbody>";
  // the listings the saving was priced from, with their dates (and the stale and international marks), then the
  // evidence behind each device's speed, the saving at the known error, the calibration and how effort is read
  const used = r.offers_used || [];
  const ev = [...new Set(Object.values(r.derived || {}).map(d => d && d.evidence).filter(Boolean))];
  const known = r.if_known_error && r.if_known_error.note;
  $("#mig-notes").innerHTML = (used.length ? `<h3>${esc(t("mig_offers"))}</h3><ul class="mig-offers">` + used.map(o =>
    `<li>${esc(devName(o.device) + t("label_sep"))}${esc(o.offer)} · ${esc(o.provider)} · ${esc(kindLabel(o.kind))} · ${esc(o.date)} · ${esc(t("cny_h"))} ${fmt(o.cny_per_card_hour, 2)}${intlTag(o.region)}${o.stale ? `<div class="warn">${esc(o.stale)}</div>` : ""}</li>`).join("") + "</ul>" : "") +
    (ev.length || known ? `<h3>${esc(t("mig_evidence"))}</h3><ul>` + [...ev, known].filter(Boolean).map(x => `<li>${esc(x)}</li>`).join("") + "</ul>" : "") +
    (r.calibration ? `<p class="muted">${esc(r.calibration)}</p>` : "") + `<p class="muted">${esc(t("mig.effort.seed_reading"))}</p>`;
}

// ---- rent vs buy (POST /api/rent-vs-buy, as `suanli rent-vs-buy`)
$("#rvb-form").addEventListener("submit", async ev => {
  ev.preventDefault(); saveUrl();
  const num = id => { const v = $(id).value; return v === "" ? undefined : Number(v); };
  const body = {gpu: $("#rvb-gpu").value, utilization: num("#rvb-util"), years: num("#rvb-years"), cards: num("#rvb-cards"),
    server_share: num("#rvb-server"), ops: num("#rvb-ops"), subsidy: num("#rvb-subsidy"), use_pattern: $("#rvb-pattern").value, region: $("#rvb-region").value, offer_kinds: kindsOf("#rvb-kinds")};
  Object.keys(body).forEach(k => body[k] === undefined && delete body[k]);
  await runRvb(body);
});
function rvbFail(m) { state.rvb = null; $("#rvb-table").innerHTML = ""; $("#rvb-notes").innerHTML = ""; $("#rvb-meta").textContent = ""; $("#rvb-error").textContent = m; $("#rvb-error").hidden = false; }
async function runRvb(body) {
  state.rvbBody = body;
  $("#rvb-error").hidden = true; $("#rvb-btn").disabled = true;
  try { state.rvb = await api(pageUrl("/api/rent-vs-buy"), body); renderRvb(state.rvb); }
  catch (e) { rvbFail(e.message); }
  finally { $("#rvb-btn").disabled = false; }
}
const pct = v => fmt(v * 100, 1) + "%";
function renderRvb(r) {
  $("#rvb-error").hidden = true;
  const body = state.rvbBody || {}, tot = r.totals;
  $("#rvb-meta").textContent = devName(body.gpu) + " · " + basis(r.region, r.offer_kinds);
  const rows = [[t("rvb_per_card_year", {share: pct(r.utilization)}), r.rent_at_utilization_cny, r.buy_at_utilization_cny, r.gross_rent_at_utilization_cny],
    [t("rvb_full_use"), r.rent_cny_per_year_full_use, r.buy_cny_per_year],
    [t("rvb_total", {cards: tot.cards, years: fmt(tot.years, 2)}), tot.rent_cny, tot.own_cny],
    [t("rvb_capex_all", {cards: tot.cards}), null, tot.capex_all_cards_cny],
    [t("rvb_running", {cards: tot.cards, years: fmt(tot.years, 2)}), null, tot.running_cny],
    [t("rvb_capex"), null, r.capex_cny], [t("rvb_power"), null, r.power_cny_per_year_full_use]];
  $("#rvb-table").innerHTML = `<thead><tr><th scope="col">${esc(t("col.item"))}</th><th scope="col">${esc(t("rvb_rent"))}</th><th scope="col">${esc(t("rvb_own"))}</th></tr></thead><tbody>` +
    rows.map(([k, a, b, g]) => `<tr><th scope="row">${esc(k)}</th>${td("rvb_rent", a == null ? "—" : (g != null && r.subsidy ? "¥" + grossNet(a, g, r.subsidy) : yuan(a)), "num")}${td("rvb_own", b == null ? "—" : yuan(b), "num")}</tr>`).join("") + "</tbody>";
  // the verdict and the difference are the core's (plan.cost.rent_vs_buy_totals), as the CLI prints them
  const o = r.rent_offer, fr = r.fresh_rent_range;
  const line = (k, html, cls = "") => `<p${cls ? ` class="${cls}"` : ""}><strong>${esc(t(k) + t("label_sep"))}</strong>${html}</p>`;
  $("#rvb-notes").innerHTML =
    `<p class="verdict"><strong>${esc(t("rvb_cheaper", {share: pct(r.utilization), which: t("rvb.cheaper." + tot.cheaper), diff: fmt(tot.diff_cny, 0), cards: tot.cards, years: fmt(tot.years, 2)}) + (tot.verdict_note ? t("cli.rvb.verdict_but", {note: tot.verdict_note}) : ""))}</strong></p>` +
    // never (null) or at any use (0, a558a7a): the note says why, as the CLI's table does; no "0%"
    line("rvb_break_even", r.break_even_utilization ? `${pct(r.break_even_utilization)} — ${esc(r.break_even_note)}` : esc(r.break_even_note)) +
    line("rvb_offer", (o ? `${esc(o.offer)} · ${esc(o.provider)} · ${esc(kindLabel(o.kind))} · ${esc(o.date)} · ${esc(t("cny_h"))} ${fmt(r.rent_cny_per_card_hour, 2)}${intlTag(o.region)}` +
      (o.stale ? `<div class="warn">${esc(o.stale)}</div>` : "") + "<br>" : "") + `<span class="muted">${esc(r.rent_at_utilization_note)}</span>`) +
    (r.commitment_note ? line("rvb_commitment", esc(r.commitment_note), "warn") : "") +
    (r.server_share_note ? line("rvb_server_note", esc(r.server_share_note)) : "") +
    // the subsidy (rent side only), the purchase prices' rows and dates, their staleness and notes, whole servers, and
    // the rent's notes (separate instances), as the CLI prints them
    (r.subsidy_note ? line("subsidy", esc(t("rvb.subsidy_rent_only", {line: r.subsidy_note}))) : "") +
    (r.card_price_date || r.server_price_date ? line("rvb_purchase", ["card", "server"].filter(w => r[w + "_price_date"])
      .map(w => esc(t("rvb.purchase." + w, {id: r[w + "_price_id"], date: r[w + "_price_date"]}))).join("<br>") +
      (r.purchase_notes || []).map(n => `<div class="warn">! ${esc(n)}</div>`).join("")) : "") +
    (r.servers ? `<p>${esc(t("rvb.purchase.servers", {servers: r.servers, server_cards: r.server_cards, cards: tot.cards}))}</p>` : "") +
    (r.rent_notes || []).map(n => `<p class="warn">! ${esc(n)}</p>`).join("") +
    (fr && fr.offers.length > 1 ? `<p class="warn">${esc(rvbFresh(fr))}</p>` : "");
}
// the close call's break-even at the cheapest and dearest fresh price, in the CLI's words (cli.rvb.be_*): buying
// pays off "at any use" at 0 (a558a7a), never "0%"; at any use at both prices the verdict's note says why
const beText = be => be == null ? t("cli.rvb.be_never") : be === 0 ? t("cli.rvb.be_any") : t("cli.rvb.be_share", {share: pct(be)});
function rvbFresh(fr) {
  const lo = fmt(fr.offers[0].rent_cny_per_card_hour, 2), hi = fmt(fr.offers[fr.offers.length - 1].rent_cny_per_card_hour, 2);
  if (fr.break_even_at_lowest === 0 && fr.break_even_at_highest === 0) return t("rvb_fresh_any", {lo, hi});
  return t("rvb_fresh", {lo, hi, be_lo: beText(fr.break_even_at_lowest), be_hi: beText(fr.break_even_at_highest)});
}

// ---- catalog: search, keyboard (each device is a button), detail with sources by title
async function loadCatalog() {
  try {
    // vendor names in either language find a device (华为 on the English page too): both catalogs
    const [accs, sources] = await Promise.all([api("/api/accelerators"), api("/api/sources"), loadMessages("zh"), loadMessages("en")]);
    state.sources = Object.fromEntries(sources.map(s => [s.id, s]));
    knowNames(accs); state.accs = accs; renderAccs(accs);
  } catch (e) { showInit(e); }
}
function matches(r, q) {
  if (!q) return true;
  const hay = [r.id, r.name, r.vendor, ...["zh", "en"].map(l => (MSG[l] || {})["vendor." + r.vendor] || ""), ...(r.aliases || [])].join(" ").toLowerCase().replace(/[\s_-]+/g, "");
  return hay.includes(q.toLowerCase().replace(/[\s_-]+/g, ""));
}
function renderAccs(rows) {
  const q = $("#acc-search").value.trim();
  const shown = rows.filter(r => matches(r, q));
  const head = ["device", "vendor", "memory_gib", "bw", "bf16", "conflicts"];
  $("#acc-table").innerHTML = `<thead><tr>${head.map(k => `<th scope="col">${t(k)}</th>`).join("")}</tr></thead><tbody>` +
    (shown.length ? shown.map(r => `<tr data-id="${esc(r.id)}"${state.detail && state.detail.d.id === r.id ? ' class="selected"' : ""}>${td("device", `<button type="button" class="linklike open" data-id="${esc(r.id)}">${esc(devName(r.id, r.name))}</button>`)}${td("vendor", esc(label("vendor", r.vendor)))}${td("memory_gib", fmt(r.memory_gib), "num")}${td("bw", fmt(r.memory_bandwidth_gb_per_s, 0), "num")}${td("bf16", fmt(r.bf16_dense_tflops), "num")}${td("conflicts", r.conflicts.length || "", "conflict")}</tr>`).join("")
      : `<tr><td>${t("no_match")}</td></tr>`) + "</tbody>";
  $("#acc-table").querySelectorAll("button.open").forEach(b => b.addEventListener("click", () => openDevice(b.dataset.id)));
}
$("#acc-search").addEventListener("input", () => { if (state.accs) renderAccs(state.accs); });
async function openDevice(id, focus = true) {   // focus: false when the toggle asks for the notes in the new language
  const [d, offers] = await Promise.all([api("/api/accelerators/" + encodeURIComponent(id)), api("/api/offers?limit=1000&device=" + encodeURIComponent(id))]);
  state.detail = {d, offers}; renderDetail(state.detail); renderAccs(state.accs);
  if (!focus) return;
  const el = $("#acc-detail"); el.focus({preventScroll: true}); el.scrollIntoView({block: "start"});
}
function sourceLink(id, title) {
  const s = (state.sources || {})[id] || {title: title || id};
  const name = esc(s.title || title || id);
  return /^https?:\/\//.test(s.url || "") ? `<a href="${esc(s.url)}" target="_blank" rel="noopener">${name}</a>` : name;
}
// an offer's date as `suanli offers` writes it: a stale price (GET /api/offers' `stale`) marked, a note under the table
const offerDate = o => esc(o.stale ? t("cli.offers.date_stale", {date: o.date}) : o.date);
function renderDetail({d, offers}) {
  let rows = "";
  for (const [k, v] of Object.entries(d.specs)) {
    v.sources.forEach((s, i) => { rows += `<tr class="${v.conflict ? "conflict" : ""}">${td("field", i ? "" : esc(label("spec", k)))}${td("value", `${fmt(s.value, 2)}${s.default && v.sources.length > 1 ? " *" : ""}`, "num" + (s.default ? " default" : ""))}${td("source", sourceLink(s.source, s.source_title), "src")}${td("date", esc(s.date))}${td("note", esc(s.note))}</tr>`; });
  }
  const head = k => k.map(x => `<th scope="col">${t(x)}</th>`).join("");
  $("#acc-detail").innerHTML = `<h3>${esc(devName(d.id, d.name))}</h3>${d.conflicts.length ? `<p class="conflict">${esc(t("conflicts") + t("label_sep"))}${d.conflicts.map(c => esc(label("spec", c))).join(t("list.sep"))}</p>` : ""}
    <div class="table-wrap" tabindex="0"><table id="spec-table" class="cards"><thead><tr>${head(["field", "value", "source", "date", "note"])}</tr></thead><tbody>${rows}</tbody></table></div>
    <h4>${t("offers")}</h4><div class="table-wrap" tabindex="0"><table class="cards"><thead><tr>${head(["provider", "gpus", "billing", "price", "kind", "region", "date", "source"])}</tr></thead><tbody>
    ${offers.map(o => `<tr${o.stale ? ' class="stale"' : ""}>${td("provider", esc(o.provider))}${td("gpus", o.cards, "num")}${td("billing", esc(label("billing_unit", o.billing_unit)))}${td("price", fmt(o.price_cny, 2), "num")}${td("kind", esc(kindLabel(o.kind)))}${td("region", regionCell(o.region || "cn", isIntl(o.region)))}${td("date", offerDate(o), o.stale ? "warn" : "")}${td("source", sourceLink(o.source), "src")}</tr>`).join("")}</tbody></table></div>
    ${offers.some(o => o.stale) ? `<p class="muted stale-note">${esc(t("offers_stale_note"))}</p>` : ""}`;
}

// every device list in the page's language (devName), rebuilt by the toggle keeping each selection; TCO lists the priced
function fillDevices() {
  const accs = state.devices; if (!accs) return;
  const opts = list => list.map(a => `<option value="${esc(a.id)}">${esc(devName(a.id, a.name))}</option>`).join("");
  [["cmp-devices", accs], ["tco-gpu", accs.filter(a => state.priced.has(a.id))], ["mig-from", accs], ["mig-to", accs], ["rvb-gpu", accs]]
    .forEach(([id, list]) => {
      const el = $("#" + id), was = el.value, picked = [...el.options].filter(o => o.selected).map(o => o.value);
      el.innerHTML = opts(list);
      if (el.multiple) [...el.options].forEach(o => { o.selected = picked.includes(o.value); });
      else if (was) setValue(id, was);
    });
}

// ---- start
function showInit(e) { $("#plan-error").textContent = e.message; $("#plan-error").hidden = false; }
(async function init() {
  await Promise.all([...new Set([lang, "en"])].map(loadMessages));
  applyLang();
  const [models, accs, offers, frameworks] = await Promise.all([api("/api/models"), api("/api/accelerators"), api("/api/offers?limit=1000"), api("/api/frameworks")]);
  state.frameworks = frameworks; fillFrameworks("");
  $("#already-on").insertAdjacentHTML("beforeend", [...new Set(accs.map(a => a.stack))].sort()
    .map(s => `<label class="check"><input type="checkbox" value="${esc(s)}"><span data-i18n="stack.${esc(s)}">${esc(t("stack." + s))}</span></label>`).join(""));
  state.offers = Object.fromEntries(offers.map(o => [o.id, o])); knowNames(accs);
  const llm = models.filter(m => m.kind === "llm");
  const opts = llm.map(m => `<option value="${esc(m.id)}">${esc(m.id)} (${(m.params / 1e9).toFixed(1)} B)</option>`).join("");
  $("#model").innerHTML = opts; $("#cmp-model").innerHTML = opts; $("#mig-model").innerHTML = opts;
  const q7 = llm.find(m => /qwen2\.5-7b/i.test(m.id)); if (q7) { $("#model").value = q7.id; $("#cmp-model").value = q7.id; $("#mig-model").value = q7.id; }
  state.devices = accs; state.priced = new Set(offers.map(o => o.device)); fillDevices();
  $("#mig-from").value = "h800"; $("#mig-to").value = "ascend-910b"; $("#rvb-gpu").value = $("#tco-gpu").value = "rtx-4090";  // tco: a device the default prices hold
  FORM.forEach(id => { DEFAULTS[id] = $("#" + id).value; });
  restoreForm(); syncTask(); syncCmpTask(); syncMigTask(); fillFrameworks(params.get("framework") || "");
  const tab = tabs.find(b => b.dataset.tab === params.get("tab")); if (tab) selectTab(tab); else saveUrl();
  document.body.dataset.ready = "1";
})().catch(showInit);
