// suanli web page: plain JS, charts drawn as SVG by hand (no library, no CDN; works offline).
"use strict";
const I18N = {
  en: {tagline:"Which GPU or NPU to rent, how many, how long, at what cost.",tab_plan:"Plan",tab_compare:"Compare",tab_value:"TFLOPS per yuan",tab_catalog:"Catalog",
    model:"Model",task:"Task",task_lora:"LoRA fine-tuning",task_qlora:"QLoRA fine-tuning",task_full:"Full fine-tuning",task_pretrain:"Pre-training",task_inference:"Inference (serving)",
    tokens:"Tokens to train on",rps:"Requests per second",input:"Prompt tokens",output:"Output tokens",budget:"Budget (¥)",deadline:"Deadline (hours)",max_gpus:"Most cards",
    objective:"Objective",obj_cheapest:"cheapest",obj_fastest:"fastest",obj_best_value:"best value",obj_fwb:"fastest within budget",domestic:"Domestic only (信创)",
    no_migration:"No migration",plan_btn:"Plan",planning:"Planning…",ranked:"Ranked plans",compare_selected:"Compare selected side by side",
    chart_memory:"Memory per card by item (GiB)",chart_pareto:"Cost against time, Pareto front",why_not:"Why not …",cards:"Cards each",devices:"Devices (2–4)",compare_btn:"Compare",
    value_help:"Dense peak TFLOPS ÷ cheapest price per card-hour (the seeds' 每元有效TFLOPS), single card.",catalog_help:"Every value has a source; where sources disagree all values are kept and one is the default.",
    rank:"#",device:"Device",gpus:"Cards",layout:"Layout",mem:"GiB/card",hours:"Hours",cost:"¥ rent",total:"¥ total",reason:"Reason",warnings:"Warnings",select:"Pick",
    configs:"configurations in",no_plan:"No plan satisfies the constraints. Relax:",capacity:"card memory",pareto:"Pareto front",plans:"ranked plans",
    hours_axis:"hours (log)",cost_axis:"¥ (log)",field:"Field",value:"Value",source:"Source",date:"Date",note:"Note",conflicts:"Sources disagree on",
    vendor:"Vendor",memory_gib:"Memory GiB",bw:"Bandwidth GB/s",bf16:"BF16 dense TFLOPS",offers:"Offers",provider:"Provider",billing:"Billing",price:"¥ per unit",
    fits:"Fits",tokens_per_s:"tokens/s",cny_h:"¥ per card-hour",eff_tflops:"eff. TFLOPS per ¥/h",pick_devices:"Pick 2 to 4 devices",domestic_c:"domestic",foreign_c:"foreign",
    mem_gib:"GiB per card",scaling:"Scaling",offer:"Offer",yes:"yes",no:"no",pick_plans:"Tick 2–4 plans first",why:"Reason"},
  zh: {tagline:"租哪种 GPU/NPU、租几张、租多久、花多少钱。",tab_plan:"选型规划",tab_compare:"横向对比",tab_value:"每元有效TFLOPS",tab_catalog:"硬件目录",
    model:"模型",task:"任务",task_lora:"LoRA 微调",task_qlora:"QLoRA 微调",task_full:"全参微调",task_pretrain:"预训练",task_inference:"推理（服务）",
    tokens:"训练 token 数",rps:"每秒请求数",input:"输入 token",output:"输出 token",budget:"预算（元）",deadline:"截止时间（小时）",max_gpus:"最多卡数",
    objective:"目标",obj_cheapest:"最便宜",obj_fastest:"最快",obj_best_value:"性价比",obj_fwb:"预算内最快",domestic:"仅国产（信创）",
    no_migration:"不接受迁移",plan_btn:"规划",planning:"正在规划…",ranked:"推荐方案",compare_selected:"并排对比所选方案",
    chart_memory:"每卡显存构成（GiB）",chart_pareto:"成本与时间（帕累托前沿）",why_not:"为何不选 …",cards:"每种卡数",devices:"设备（2–4 个）",compare_btn:"对比",
    value_help:"稠密峰值 TFLOPS ÷ 最低单卡时租价（种子文章的每元有效TFLOPS），单卡。",catalog_help:"每个数值都有来源；来源不一致时全部保留并标注默认值。",
    rank:"#",device:"设备",gpus:"卡数",layout:"并行方式",mem:"每卡 GiB",hours:"小时",cost:"租金 ¥",total:"总计 ¥",reason:"理由",warnings:"提示",select:"选择",
    configs:"种配置，用时",no_plan:"没有满足约束的方案。可放宽：",capacity:"显存容量",pareto:"帕累托前沿",plans:"推荐方案",
    hours_axis:"小时（对数）",cost_axis:"元（对数）",field:"字段",value:"数值",source:"来源",date:"日期",note:"备注",conflicts:"来源不一致的字段",
    vendor:"厂商",memory_gib:"显存 GiB",bw:"带宽 GB/s",bf16:"BF16 稠密 TFLOPS",offers:"租赁报价",provider:"平台",billing:"计费",price:"每单位 ¥",
    fits:"放得下",tokens_per_s:"token/秒",cny_h:"元/卡·时",eff_tflops:"每元/时有效 TFLOPS",pick_devices:"请选择 2 到 4 个设备",domestic_c:"国产",foreign_c:"进口",
    mem_gib:"每卡 GiB",scaling:"扩展效率",offer:"报价",yes:"是",no:"否",pick_plans:"请先勾选 2–4 个方案",why:"原因"},
};
let lang = localStorage.getItem("suanli-lang") || ((navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en");
const t = k => (I18N[lang] && I18N[lang][k]) || I18N.en[k] || k;
const $ = s => document.querySelector(s);
const state = {plan: null, compare: null, value: null, accs: null, detail: null};
const COLORS = ["#0b6bcb","#e8590c","#2f9e44","#ae3ec9","#f59f00","#1098ad","#d6336c","#5c7cfa","#868e96","#94d82d"];

function applyLang() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  document.querySelectorAll("[data-i18n]").forEach(el => { el.textContent = t(el.dataset.i18n); });
  $("#lang-toggle").textContent = lang === "zh" ? "English" : "中文";
  if (state.plan) renderPlan(state.plan);
  if (state.compare) renderCompare(state.compare);
  if (state.value) renderValue(state.value);
  if (state.accs) renderAccs(state.accs);
  if (state.detail) renderDetail(state.detail);
}

async function api(path, body) {
  const opt = body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const r = await fetch(path, opt);
  const data = await r.json().catch(() => ({error: r.statusText}));
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}
const esc = s => String(s ?? "").replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
const fmt = (v, d = 1) => v == null ? "" : typeof v === "number" ? v.toLocaleString(lang === "zh" ? "zh-CN" : "en-US", {maximumFractionDigits: d}) : esc(v);
const GiB = 2 ** 30;

// ---- tabs -----------------------------------------------------------------------------------------
document.querySelectorAll(".tab").forEach(b => b.addEventListener("click", () => {
  document.querySelectorAll(".tab").forEach(x => x.classList.toggle("active", x === b));
  document.querySelectorAll(".panel").forEach(p => { p.hidden = p.id !== "panel-" + b.dataset.tab; });
  if (b.dataset.tab === "value" && !state.value) api("/api/value").then(v => { state.value = v; renderValue(v); });
  if (b.dataset.tab === "catalog" && !state.accs) api("/api/accelerators").then(v => { state.accs = v; renderAccs(v); });
}));
$("#lang-toggle").addEventListener("click", () => { lang = lang === "zh" ? "en" : "zh"; localStorage.setItem("suanli-lang", lang); applyLang(); });

function syncTask() {
  const serve = $("#task").value === "inference";
  document.querySelectorAll(".serve").forEach(e => { e.hidden = !serve; });
  document.querySelectorAll(".train").forEach(e => { e.hidden = serve; });
}
$("#task").addEventListener("change", syncTask);

// ---- plan -----------------------------------------------------------------------------------------
$("#plan-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  const num = id => { const v = $(id).value; return v === "" ? undefined : Number(v); };
  const task = $("#task").value;
  const body = {model: $("#model").value, task, objective: $("#objective").value, max_gpus: num("#max-gpus"),
    budget_cny: num("#budget"), deadline_hours: num("#deadline"), domestic_only: $("#domestic").checked};
  if ($("#no-migration").checked) body.allow_migration = false;
  if (task === "inference") Object.assign(body, {requests_per_s: num("#rps"), input: num("#input"), output: num("#output")});
  else body.tokens = num("#tokens");
  Object.keys(body).forEach(k => body[k] === undefined && delete body[k]);
  const btn = $("#plan-btn"), prog = $("#progress"), t0 = performance.now();
  btn.disabled = true; prog.hidden = false; $("#plan-error").hidden = true;
  const tick = setInterval(() => { $("#progress-time").textContent = ((performance.now() - t0) / 1000).toFixed(1) + " s"; }, 100);
  try {
    state.plan = await api("/api/plan", body);
    renderPlan(state.plan);
  } catch (e) {
    $("#plan-error").textContent = e.message; $("#plan-error").hidden = false;
  } finally {
    clearInterval(tick); btn.disabled = false; prog.hidden = true;
  }
});

function renderPlan(r) {
  $("#plan-results").hidden = false;
  $("#plan-meta").textContent = `${r.model} · ${r.configurations_evaluated.toLocaleString()} ${t("configs")} ${(r.search_seconds * 1000).toFixed(0)} ms`;
  const rows = r.plans.map(p => `<tr><td><input type="checkbox" class="pick" value="${p.rank}" ${p.rank <= 2 ? "checked" : ""}></td>
    <td class="num">${p.rank}</td><td>${esc(p.device_name)}</td><td class="num">${p.gpus}</td>
    <td>tp${p.tp}·pp${p.pp}·dp${p.dp}${p.zero ? "·z" + p.zero : ""} ${esc(p.precision)}</td>
    <td class="num">${fmt(p.memory_per_gpu_bytes / GiB)} / ${fmt(p.memory_capacity_bytes / GiB, 0)}</td>
    <td class="num">${fmt(p.hours)}</td><td class="num">${fmt(p.cost_cny, 0)}</td><td class="num">${fmt(p.total_cost_cny, 0)}</td>
    <td class="reason">${esc(p.reason)}${p.warnings.map(w => `<div class="warn">! ${esc(w)}</div>`).join("")}</td></tr>`).join("");
  $("#plans-table").innerHTML = r.plans.length ? `<tr><th>${t("select")}</th><th>${t("rank")}</th><th>${t("device")}</th><th>${t("gpus")}</th><th>${t("layout")}</th><th>${t("mem")}</th><th>${t("hours")}</th><th>${t("cost")}</th><th>${t("total")}</th><th>${t("reason")}</th></tr>` + rows
    : `<tr><td class="error">${t("no_plan")} ${esc(r.relax.join("; "))}</td></tr>`;
  $("#why-table").innerHTML = r.why_not.filter(w => w.reason !== "ranked below the plans shown").slice(0, 10)
    .map(w => `<tr><td>${esc(w.device)}</td><td>${esc(w.reason)}</td></tr>`).join("");
  $("#side-by-side").innerHTML = "";
  memoryChart($("#chart-memory"), r.plans);
  paretoChart($("#chart-pareto"), r);
}

$("#compare-plans-btn").addEventListener("click", () => {
  const picked = [...document.querySelectorAll(".pick:checked")].map(x => Number(x.value));
  const plans = (state.plan?.plans || []).filter(p => picked.includes(p.rank)).slice(0, 4);
  if (plans.length < 2) { $("#side-by-side").innerHTML = `<p class="error">${t("pick_plans")}</p>`; return; }
  const fields = [["device", p => esc(p.device_name)], ["gpus", p => p.gpus], ["layout", p => `tp${p.tp}·pp${p.pp}·dp${p.dp}`],
    ["mem", p => fmt(p.memory_per_gpu_bytes / GiB)], ["tokens_per_s", p => fmt(p.tokens_per_s, 0)], ["hours", p => fmt(p.hours)],
    ["cost", p => fmt(p.cost_cny, 0)], ["total", p => fmt(p.total_cost_cny, 0)], ["offer", p => esc(p.offer)], ["billing", p => esc(p.billing_unit)],
    ["scaling", p => fmt(p.scaling_efficiency, 2)], ["warnings", p => p.warnings.map(esc).join("<br>")]];
  $("#side-by-side").innerHTML = `<table id="side-table" class="side">${fields.map(([k, f]) => `<tr><th>${t(k)}</th>${plans.map(p => `<td>${f(p)}</td>`).join("")}</tr>`).join("")}</table>`;
});

// ---- SVG charts -----------------------------------------------------------------------------------
const svg = (w, h, inner) => `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${inner}</svg>`;

function memoryChart(el, plans) {
  const items = [...new Set(plans.flatMap(p => Object.keys(p.breakdown_bytes || {})))].filter(k => k !== "kv_cache_pool_unused");
  if (!plans.length) { el.innerHTML = ""; return; }
  const W = 520, H = 60 + plans.length * 34, L = 150, R = 20, top = 10;
  const max = Math.max(...plans.map(p => Math.max(p.memory_capacity_bytes, Object.values(p.breakdown_bytes || {}).reduce((a, b) => a + b, 0)))) / GiB || 1;
  const x = v => L + (W - L - R) * v / max;
  let g = "";
  plans.forEach((p, i) => {
    const y = top + i * 34; let acc = 0;
    g += `<text x="${L - 6}" y="${y + 15}" text-anchor="end">${esc(p.rank + ". " + p.device)}</text>`;
    items.forEach((k, j) => {
      const v = ((p.breakdown_bytes || {})[k] || 0) / GiB; if (!v) return;
      g += `<rect x="${x(acc)}" y="${y}" width="${Math.max(0.5, x(acc + v) - x(acc))}" height="22" fill="${COLORS[j % COLORS.length]}"><title>${esc(k)}: ${v.toFixed(2)} GiB</title></rect>`;
      acc += v;
    });
    const cx = x(p.memory_capacity_bytes / GiB);
    g += `<line x1="${cx}" x2="${cx}" y1="${y - 3}" y2="${y + 25}" stroke="#000" stroke-dasharray="3 2"><title>${t("capacity")}</title></line>`;
  });
  const ay = top + plans.length * 34 + 4;
  for (let i = 0; i <= 4; i++) { const v = max * i / 4; g += `<text x="${x(v)}" y="${ay + 10}" text-anchor="middle">${v.toFixed(0)}</text>`; }
  el.innerHTML = svg(W, H, g) + `<div class="legend">${items.map((k, j) => `<span><i style="background:${COLORS[j % COLORS.length]}"></i>${esc(k)}</span>`).join("")}<span>┆ ${t("capacity")}</span></div>` +
    plans.filter(p => p.breakdown_note).map(p => `<div class="warn">${esc(p.rank + ". " + p.device)}: ${esc(p.breakdown_note)}</div>`).join("");
}

function logScale(vals, a, b) {
  const lo = Math.log10(Math.max(1e-6, Math.min(...vals))), hi = Math.log10(Math.max(...vals));
  const span = hi - lo || 1, l0 = lo - span * 0.08, l1 = hi + span * 0.08;
  const f = v => a + (b - a) * (Math.log10(Math.max(v, 1e-6)) - l0) / (l1 - l0);
  f.ticks = () => { const out = []; for (let e = Math.floor(l0); e <= Math.ceil(l1); e++) if (e >= l0 && e <= l1) out.push(10 ** e); return out; };
  return f;
}

function paretoChart(el, r) {
  const pts = [...r.pareto, ...r.plans.map(p => ({device: p.device, gpus: p.gpus, hours: p.hours, cost_cny: p.cost_cny}))].filter(p => p.hours > 0 && p.cost_cny > 0);
  if (!pts.length) { el.innerHTML = ""; return; }
  const W = 520, H = 300, L = 60, B = 40, T = 10, R = 20;
  const x = logScale(pts.map(p => p.hours), L, W - R), y = logScale(pts.map(p => p.cost_cny), H - B, T);
  let g = `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#999"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#999"/>`;
  x.ticks().forEach(v => { g += `<text x="${x(v)}" y="${H - B + 14}" text-anchor="middle">${fmt(v, 2)}</text>`; });
  y.ticks().forEach(v => { g += `<text x="${L - 4}" y="${y(v) + 4}" text-anchor="end">${fmt(v, 0)}</text>`; });
  g += `<text x="${(L + W) / 2}" y="${H - 6}" text-anchor="middle">${t("hours_axis")}</text><text x="12" y="${T + 10}">${t("cost_axis")}</text>`;
  const front = [...r.pareto].filter(p => p.hours > 0 && p.cost_cny > 0).sort((a, b) => a.hours - b.hours);
  if (front.length) g += `<polyline fill="none" stroke="${COLORS[1]}" stroke-width="2" points="${front.map(p => `${x(p.hours)},${y(p.cost_cny)}`).join(" ")}"/>`;
  front.forEach(p => { g += `<circle cx="${x(p.hours)}" cy="${y(p.cost_cny)}" r="3.5" fill="${COLORS[1]}"><title>${esc(p.gpus + "× " + p.device)}: ${fmt(p.hours)} h, ¥${fmt(p.cost_cny, 0)}</title></circle>`; });
  r.plans.forEach(p => { g += `<rect x="${x(p.hours) - 4}" y="${y(p.cost_cny) - 4}" width="8" height="8" fill="${COLORS[0]}"><title>${esc(p.rank + ". " + p.gpus + "× " + p.device)}</title></rect><text x="${x(p.hours) + 6}" y="${y(p.cost_cny) - 5}">${p.rank}</text>`; });
  el.innerHTML = svg(W, H, g) + `<div class="legend"><span><i style="background:${COLORS[1]}"></i>${t("pareto")}</span><span><i style="background:${COLORS[0]}"></i>${t("plans")}</span></div>`;
}

function renderValue(rows) {
  const top = rows.slice(0, 20), W = 640, L = 190, R = 60, H = 20 + top.length * 22;
  const max = Math.max(...top.map(r => r.effective_tflops_per_cny_hour), 1);
  let g = "";
  top.forEach((r, i) => {
    const y = 6 + i * 22, w = (W - L - R) * r.effective_tflops_per_cny_hour / max;
    g += `<text x="${L - 6}" y="${y + 13}" text-anchor="end">${esc(r.device)}</text><rect x="${L}" y="${y}" width="${w}" height="16" fill="${r.domestic ? COLORS[3] : COLORS[0]}"><title>${fmt(r.dense_tflops)} TFLOPS ÷ ¥${fmt(r.cny_per_card_hour, 2)}/h</title></rect><text x="${L + w + 4}" y="${y + 13}">${fmt(r.effective_tflops_per_cny_hour, 1)}</text>`;
  });
  $("#chart-value").innerHTML = svg(W, H, g) + `<div class="legend"><span><i style="background:${COLORS[3]}"></i>${t("domestic_c")}</span><span><i style="background:${COLORS[0]}"></i>${t("foreign_c")}</span> · ${t("eff_tflops")}</div>`;
}

// ---- compare --------------------------------------------------------------------------------------
$("#compare-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  const devices = [...$("#cmp-devices").selectedOptions].map(o => o.value);
  $("#cmp-error").hidden = true;
  if (devices.length < 2 || devices.length > 4) { $("#cmp-error").textContent = t("pick_devices"); $("#cmp-error").hidden = false; return; }
  const task = $("#cmp-task").value;
  const body = {model: $("#cmp-model").value, task, gpus: Number($("#cmp-gpus").value || 1), devices};
  if ($("#cmp-tokens").value) body.tokens = Number($("#cmp-tokens").value);
  $("#cmp-btn").disabled = true;
  try { state.compare = await api("/api/compare", body); renderCompare(state.compare); }
  catch (e) { $("#cmp-error").textContent = e.message; $("#cmp-error").hidden = false; }
  finally { $("#cmp-btn").disabled = false; }
});
function renderCompare(rows) {
  const f = [["device", r => esc(r.device_name)], ["mem_gib", r => fmt(r.memory_per_gpu_bytes / GiB) + " / " + fmt(r.memory_capacity_bytes / GiB, 0)],
    ["fits", r => r.fits ? t("yes") : `<span class="conflict">${t("no")}</span>`], ["tokens_per_s", r => fmt(r.tokens_per_s, 0)], ["hours", r => fmt(r.hours, 2)],
    ["cost", r => fmt(r.cost_cny, 0)], ["cny_h", r => fmt(r.cny_per_card_hour, 2)], ["eff_tflops", r => fmt(r.effective_tflops_per_cny_hour, 1)], ["scaling", r => fmt(r.scaling_efficiency, 2)]];
  $("#cmp-table").innerHTML = f.map(([k, g]) => `<tr><th>${t(k)}</th>${rows.map(r => `<td class="num">${g(r)}</td>`).join("")}</tr>`).join("");
}

// ---- catalog --------------------------------------------------------------------------------------
function renderAccs(rows) {
  $("#acc-table").innerHTML = `<tr><th>${t("device")}</th><th>${t("vendor")}</th><th>${t("memory_gib")}</th><th>${t("bw")}</th><th>${t("bf16")}</th><th>${t("conflicts")}</th></tr>` +
    rows.map(r => `<tr data-id="${esc(r.id)}"><td>${esc(r.name)}</td><td>${esc(r.vendor)}</td><td class="num">${fmt(r.memory_gib)}</td><td class="num">${fmt(r.memory_bandwidth_gb_per_s, 0)}</td><td class="num">${fmt(r.bf16_dense_tflops)}</td><td class="conflict">${r.conflicts.length || ""}</td></tr>`).join("");
  $("#acc-table").querySelectorAll("tr[data-id]").forEach(tr => tr.addEventListener("click", async () => {
    const [d, offers] = await Promise.all([api("/api/accelerators/" + encodeURIComponent(tr.dataset.id)), api("/api/offers?device=" + encodeURIComponent(tr.dataset.id))]);
    state.detail = {d, offers}; renderDetail(state.detail);
  }));
}
function renderDetail({d, offers}) {
  let rows = "";
  for (const [k, v] of Object.entries(d.specs)) {
    v.sources.forEach((s, i) => { rows += `<tr class="${v.conflict ? "conflict" : ""}"><td>${i ? "" : esc(k)}</td><td class="num ${s.default ? "default" : ""}">${fmt(s.value, 2)}${s.default && v.sources.length > 1 ? " *" : ""}</td><td>${esc(s.source)}</td><td>${esc(s.date)}</td><td>${esc(s.note)}</td></tr>`; });
  }
  $("#acc-detail").innerHTML = `<h3>${esc(d.name)}</h3>${d.conflicts.length ? `<p class="conflict">${t("conflicts")}: ${d.conflicts.map(esc).join(", ")}</p>` : ""}
    <table id="spec-table"><tr><th>${t("field")}</th><th>${t("value")}</th><th>${t("source")}</th><th>${t("date")}</th><th>${t("note")}</th></tr>${rows}</table>
    <h4>${t("offers")}</h4><table><tr><th>${t("provider")}</th><th>${t("gpus")}</th><th>${t("billing")}</th><th>${t("price")}</th><th>${t("date")}</th><th>${t("source")}</th></tr>
    ${offers.map(o => `<tr><td>${esc(o.provider)}</td><td class="num">${o.cards}</td><td>${esc(o.billing_unit)}</td><td class="num">${fmt(o.price_cny, 2)}</td><td>${esc(o.date)}</td><td>${esc(o.source)}</td></tr>`).join("")}</table>`;
}

// ---- start ----------------------------------------------------------------------------------------
(async function init() {
  applyLang(); syncTask();
  const [models, accs] = await Promise.all([api("/api/models"), api("/api/accelerators")]);
  const llm = models.filter(m => m.kind === "llm");
  const opts = llm.map(m => `<option value="${esc(m.id)}">${esc(m.id)} (${(m.params / 1e9).toFixed(1)} B)</option>`).join("");
  $("#model").innerHTML = opts; $("#cmp-model").innerHTML = opts;
  const q7 = llm.find(m => /qwen2\.5-7b/i.test(m.id)); if (q7) { $("#model").value = q7.id; $("#cmp-model").value = q7.id; }
  $("#cmp-devices").innerHTML = accs.map(a => `<option value="${esc(a.id)}">${esc(a.name)}</option>`).join("");
  document.body.dataset.ready = "1";
})().catch(e => { $("#plan-error").textContent = e.message; $("#plan-error").hidden = false; });
