// The explorer page: plain DOM, no framework, nothing fetched but make dev's own /_explorer/api.
"use strict";

const state = { view: "table", prefix: "", cursor: "", read: new Set(), colours: new Map(), lastLog: 0, lastEvent: 0 };
const $ = (id) => document.getElementById(id);
const keyOf = (pk, sk) => pk + "\u0000" + sk;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

async function api(path, options) {
  const response = await fetch(path, options);
  const body = await response.json();
  if (!response.ok) throw new Error(body.detail || body.title || response.statusText);
  return body;
}

function badge(entity, sourceDesign) {
  if (!entity) return el("span", { class: "badge unknown", text: "not an entity of the store" });
  const colour = state.colours.get(entity) ?? { background: "#475569", text: "#ffffff" };
  return el("span", { class: "badge" + (sourceDesign ? " source" : ""), "data-entity": entity,
    style: `background-color: ${colour.background}; color: ${colour.text}` },
    (sourceDesign ? "◆ " : "") + entity);
}

async function loadLegend() {
  const { entities } = await api("/_explorer/api/legend");
  const list = $("legend");
  list.replaceChildren();
  entities.forEach((entity) => {
    state.colours.set(entity.name, { background: entity.background, text: entity.text });
    list.append(el("li", {}, badge(entity.name, entity.sourceDesign), " ",
      el("code", { text: `${entity.pk} · ${entity.sk}` })));
  });
}

function capacityText(call) {
  const c = call.capacity;
  if (!c) return call.error ? "" : "no capacity reported";
  const parts = [];
  if (c.table) parts.push(`table ${c.table}`);
  for (const [index, units] of Object.entries(c.indexes || {})) parts.push(`${index} ${units}`);
  return `${c.total} ${call.units} units` + (parts.length ? ` (${parts.join(", ")})` : "");
}

function attributes(attrs, skip) {
  return Object.entries(attrs)
    .filter(([name]) => !skip.includes(name))
    .map(([name, value]) => el("span", {}, el("b", { text: name + " " }), value));
}

function partitionSection(partition, page) {
  const inIndex = page.view !== "table";
  const head = el("tr", {}, el("th", { scope: "col", text: "Entity" }),
    el("th", { scope: "col", text: page.sortKey }),
    inIndex ? el("th", { scope: "col", text: "PK · SK" }) : null,
    el("th", { scope: "col", text: "Attributes" }));
  const rows = partition.items.map((item) => {
    const read = state.read.has(keyOf(item.pk, item.sk));
    return el("tr", { class: read ? "read" : null, "data-pk": item.pk, "data-sk": item.sk, "data-entity": item.entity || "", "data-read": read ? "true" : null },
      el("td", {}, badge(item.entity, item.sourceDesign), read ? el("span", { class: "read-mark", text: "read ✓" }) : null),
      el("td", { class: "mono", text: inIndex ? item.indexKey[1] : item.sk }),
      inIndex ? el("td", { class: "mono", text: `${item.pk} · ${item.sk}` }) : null,
      el("td", { class: "attrs" }, attributes(item.attributes, ["PK", "SK", page.partitionKey, page.sortKey])));
  });
  return el("section", { class: "partition", "data-partition": partition.key, "aria-label": `${page.partitionKey} ${partition.key}` },
    el("h3", {}, `${page.partitionKey} = `, el("code", { text: partition.key }), ` — ${partition.items.length} item${partition.items.length === 1 ? "" : "s"}`),
    el("table", {}, el("thead", {}, head), el("tbody", {}, rows)));
}

async function loadCollections() {
  const query = new URLSearchParams({ view: state.view, prefix: state.prefix, cursor: state.cursor });
  $("collections-status").textContent = "Reading the table…";
  let page;
  try {
    page = await api(`/_explorer/api/collections?${query}`);
  } catch (err) {
    $("collections-status").textContent = `Could not read the table: ${err.message}`;
    return;
  }
  $("views").replaceChildren(...page.views.map((view) =>
    el("button", { type: "button", "aria-pressed": String(view.name === page.view), "data-view": view.name,
      title: `partition key ${view.pk}, sort key ${view.sk}` }, view.name === "table" ? "Table" : view.name)));
  $("prefix").value = state.prefix;
  const shown = page.partitions.length;
  $("collections-status").textContent = `${page.view === "table" ? "The table" : `Index ${page.view}`}: ${shown} partition${shown === 1 ? "" : "s"}` +
    (state.prefix ? ` whose ${page.partitionKey} starts with “${state.prefix}”` : "") +
    ` in this stretch (${page.scanned} item${page.scanned === 1 ? "" : "s"} read; a page reads at most ${page.budget})` +
    (page.next ? ", more after it" : "") +
    (state.read.size ? "; the items the last pattern read are marked “read ✓”." : ".");
  $("partitions").replaceChildren(...page.partitions.map((p) => partitionSection(p, page)));
  const next = $("next-page");
  next.disabled = !page.next;
  next.dataset.cursor = page.next || "";
  $("first-page").disabled = !state.cursor;
}

function showView(view, prefix) {
  state.view = view;
  state.prefix = prefix;
  state.cursor = "";
  return loadCollections();
}

async function loadPatterns() {
  const { patterns } = await api("/_explorer/api/patterns");
  const hash = fragment();
  $("patterns").replaceChildren(...patterns.map((pattern) => {
    const inputs = [...pattern.pathParams, ...pattern.queryParams].map((param) => {
      const id = `p${pattern.number}-${param.name}`;
      const value = hash.get("pattern") === pattern.number && hash.has(param.name) ? hash.get(param.name) : param.sample;
      return el("label", { for: id }, param.name, el("input", { id, name: param.name, value, autocomplete: "off" }));
    });
    const form = el("form", { "data-pattern": pattern.number, "aria-label": `Run access pattern ${pattern.number}` },
      inputs, el("button", { type: "submit" }, "Run"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const params = Object.fromEntries(new FormData(form).entries());
      runPattern(pattern.number, params);
    });
    return el("div", { class: "pattern" },
      el("h3", {}, `${pattern.number}. ${pattern.question}`),
      el("p", { class: "hint" }, el("code", { text: pattern.route }), ` as ${pattern.caller}`), form);
  }));
}

/// The partition a call read: its Key's PK, or the value its key condition fixes.
function partitionOf(request) {
  if (request.Key) return Object.values(request.Key)[0]?.S ?? null;
  const match = /^\s*(\S+)\s*=\s*(:\w+)/.exec(request.KeyConditionExpression || "");
  return match ? request.ExpressionAttributeValues?.[match[2]]?.S ?? null : null;
}

function commonPrefix(texts) {
  if (!texts.length) return "";
  return texts.reduce((prefix, text) => {
    let i = 0;
    while (i < prefix.length && prefix[i] === text[i]) i++;
    return prefix.slice(0, i);
  });
}

function callItem(call) {
  return el("li", { class: "call", "data-operation": call.operation },
    el("strong", { text: call.operation }), " — ",
    el("span", { class: "capacity", text: capacityText(call) }),
    call.read.length ? ` — ${call.read.length} item${call.read.length === 1 ? "" : "s"} read` : "",
    call.error ? el("span", { class: "error", text: ` — ${call.error}` }) : null,
    el("details", {}, el("summary", { text: "the request" }), el("pre", { text: JSON.stringify(call.request, null, 2) })));
}

async function runPattern(number, params) {
  const out = $("run");
  out.textContent = `Running access pattern ${number}…`;
  let result;
  try {
    result = await api("/_explorer/api/run", { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ pattern: number, params }) });
  } catch (err) {
    out.textContent = `Could not run it: ${err.message}`;
    return;
  }
  const reads = result.calls.filter((c) => c.units === "read");
  state.read = new Set(reads.flatMap((c) => c.read.map(([pk, sk]) => keyOf(pk, sk))));
  const requests = result.calls.length;
  out.replaceChildren(el("div", { class: "result", "data-pattern": number, "data-status": result.status },
    el("h3", {}, `Pattern ${number}: `, el("code", { text: result.request })),
    el("p", {}, `as ${result.caller} → `, el("span", { class: result.status < 400 ? "status-ok" : "status-bad", text: String(result.status) }),
      ` — ${requests} DynamoDB request${requests === 1 ? "" : "s"}, ${state.read.size} item${state.read.size === 1 ? "" : "s"} read, no Scan.`),
    el("ol", {}, result.calls.map(callItem)),
    el("details", {}, el("summary", { text: "the API's answer" }), el("pre", { class: "mono", text: JSON.stringify(result.answer, null, 2) }))));
  const first = result.calls.find((c) => c.request && (c.request.KeyConditionExpression || c.request.Key));
  const view = first?.request.IndexName || "table";
  const partitions = result.calls.map((c) => partitionOf(c.request || {})).filter(Boolean);
  await showView(view, commonPrefix(partitions));
  document.body.dataset.ran = number;
}

function logEntry(record) {
  const ok = record.status < 400;
  return el("li", { "data-id": record.id, "data-route": record.route, "data-status": record.status },
    el("span", { class: ok ? "status-ok" : "status-bad", text: String(record.status) }), " ",
    el("code", { text: `${record.method} ${record.target}` }),
    el("div", { class: "hint" }, `${record.route} · ${record.caller} · ${record.ms} ms · ${record.at.slice(11, 23)}`),
    record.calls.length ? el("ul", {}, record.calls.map((call) =>
      el("li", { "data-operation": call.operation }, el("strong", { text: call.operation }), " — ",
        el("span", { class: "capacity", text: capacityText(call) }),
        call.error ? el("span", { class: "error", text: ` — ${call.error}` }) : null))) : null);
}

async function pollLog() {
  try {
    const { requests } = await api(`/_explorer/api/log?after=${state.lastLog}`);
    const list = $("log");
    for (const record of requests) {
      list.prepend(logEntry(record));
      state.lastLog = Math.max(state.lastLog, record.id);
    }
  } catch (err) {
    // make dev stopped: try again on the next tick.
  }
}

function eventEntry(envelope) {
  const detail = envelope.detail || {};
  const about = detail.order ? `${detail.order.status} ${detail.order.total}`
    : detail.refund ? `${detail.refund.status} ${detail.refund.amount} ${detail.refund.currency}`
    : detail.return ? `${detail.return.status} ${(detail.return.lines || []).map((l) => `${l.sku}x${l.quantity}`).join(",")} (${detail.return.reason || ""})`
    : detail.cancellation ? `CANCELLED ${(detail.cancellation.lines || []).map((l) => `${l.sku}x${l.quantity}`).join(",")} (${detail.cancellation.reason || ""})`
    : detail.fulfilment ? `${detail.fulfilment.status} ${(detail.fulfilment.lines || []).map((l) => `${l.sku}x${l.quantity}`).join(",")} ${detail.fulfilment.carrier || ""} ${detail.fulfilment.trackingNumber || ""}`.trim()
    : detail.product ? `stock ${detail.product.stock} (below ${detail.product.threshold})` : "";
  return el("li", { "data-type": detail.type || "", "data-event-id": detail.eventId || "" },
    el("strong", { text: detail.type || "?" }), " ",
    el("code", { text: detail.eventId || "" }), " ", about,
    el("div", { class: "hint", text: detail.occurredAt || "" }));
}

function emailEntry(email) {
  return el("li", { "data-email-id": email.id },
    el("strong", { text: email.subject }), " ",
    el("span", { class: "hint", text: `to ${email.to.join(", ")} from ${email.from}` }),
    el("pre", { text: email.body }));
}

async function pollEvents() {
  try {
    const { events, last } = await api(`/_explorer/api/events?after=${state.lastEvent}`);
    const list = $("events");
    for (const envelope of events) list.prepend(eventEntry(envelope));
    state.lastEvent = Math.max(state.lastEvent, last);
    const { emails } = await api("/_explorer/api/emails");
    if (emails.length !== $("emails").children.length) {
      $("emails").replaceChildren(...emails.slice().reverse().map(emailEntry));
    }
    $("events-status").textContent = "";
  } catch (err) {
    $("events-status").textContent = `No events: ${err.message}`;
  }
}

function wire() {
  $("views").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-view]");
    if (button) showView(button.dataset.view, "");
  });
  $("filter").addEventListener("submit", (event) => {
    event.preventDefault();
    showView(state.view, $("prefix").value.trim());
  });
  $("clear-filter").addEventListener("click", () => showView(state.view, ""));
  $("next-page").addEventListener("click", (event) => {
    state.cursor = event.target.dataset.cursor;
    loadCollections();
  });
  $("first-page").addEventListener("click", () => {
    state.cursor = "";
    loadCollections();
  });
  setInterval(() => { if ($("follow").checked) pollLog(); }, 1500);
  setInterval(pollEvents, 2000);
}

/// The fragment's parameters, whatever it holds: text only, never a selector or markup.
function fragment() {
  try {
    return new URLSearchParams(location.hash.slice(1));
  } catch {
    return new URLSearchParams();
  }
}

async function start() {
  wire();
  const hash = fragment();
  state.view = hash.get("view") || "table";
  state.prefix = hash.get("prefix") || "";
  try {
    await loadLegend();
    await Promise.all([loadPatterns(), pollLog(), pollEvents()]);
    // The pattern's form found by comparing its number, never by building a selector from it.
    const pattern = hash.get("pattern");
    const form = [...document.querySelectorAll("form[data-pattern]")].find((f) => f.dataset.pattern === pattern);
    if (form) await runPattern(pattern, Object.fromEntries(new FormData(form).entries()));
    else await loadCollections();
  } catch (err) {
    $("collections-status").textContent = `The explorer could not start: ${err.message}`;
  }
  document.body.dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", start);
