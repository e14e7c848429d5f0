// The taskgate dashboard: polls /ui/api/* with the token this tab was given and draws what they return.
// Every value from a record is set as text (never as markup): records hold what clients sent.
"use strict";
(() => {
  const TOKEN = "taskgate.ui.token";
  const KEEP = 500; // records kept in the page
  const state = {
    token: sessionStorage.getItem(TOKEN),
    cursors: { requests: 0, endpoints: 0 },
    records: new Map(),
    selected: null,
    entry: null, // the trace entry of the selected task shown below its timeline
    drawn: null, // the record object the detail shows (a new version of it redraws)
    series: { fields: [], pools: {}, samples: [], window_s: 600, interval_s: 2 },
    batches: null, // the last /ui/api/batches answer: jobs are sent whole each time
    timer: 0,
    polled: 0,
  };
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    return fill(node, attrs, kids);
  }
  function svg(tag, attrs, ...kids) {
    return fill(document.createElementNS("http://www.w3.org/2000/svg", tag), attrs, kids);
  }
  function put(node, ...kids) {
    node.replaceChildren();
    return fill(node, {}, kids);
  }
  function fill(node, attrs, kids) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "on") for (const [type, fn] of Object.entries(value)) node.addEventListener(type, fn);
      else node.setAttribute(key, value);
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid !== null && kid !== undefined && kid !== false) node.append(kid instanceof Node ? kid : String(kid));
    }
    return node;
  }

  const ms = (v) => (v === null || v === undefined ? "-" : v >= 1000 ? `${Number((v / 1000).toPrecision(3))} s` : `${Number(v.toPrecision(3))} ms`);
  const num = (v) => (v === null || v === undefined ? "-" : String(Number(Number(v).toPrecision(3))));
  const pct = (v) => (v === null || v === undefined ? "-" : `${Math.round(v * 100)}%`);
  function ago(at) {
    if (!at) return "";
    const s = Math.max(0, Date.now() / 1000 - at);
    return s < 2 ? "now" : s < 90 ? `${Math.round(s)} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
  }
  const short = (id) => (id || "").slice(0, 8);

  // ---- talking to the gateway

  async function api(path, cursor) {
    const headers = state.token ? { Authorization: `Bearer ${state.token}` } : {};
    const resp = await fetch(cursor === undefined ? path : `${path}?after=${cursor}`, { headers, cache: "no-store" });
    if (resp.status === 401 || resp.status === 403) {
      const body = await resp.json().catch(() => ({}));
      const error = new Error((body.error && body.error.message) || `refused (${resp.status})`);
      error.refused = true;
      throw error;
    }
    if (!resp.ok) throw new Error(`the gateway answered ${resp.status}`);
    return resp.json();
  }

  async function poll() {
    clearTimeout(state.timer);
    try {
      const [requests, endpoints, batches] = await Promise.all([
        api("/ui/api/requests", state.cursors.requests),
        api("/ui/api/endpoints", state.cursors.endpoints),
        api("/ui/api/batches"),
      ]);
      state.batches = batches;
      take(requests, endpoints);
      live(true, "live");
    } catch (error) {
      if (error.refused) return signIn(error.message);
      live(false, `${error.message || "cannot reach the gateway"}; retrying`);
    }
    state.timer = setTimeout(poll, state.series.interval_s * 1000);
  }

  function take(requests, endpoints) {
    state.cursors.requests = requests.cursor;
    for (const record of requests.records) {
      state.records.delete(record.id); // a task's record comes again when it ends: the newer one wins
      state.records.set(record.id, record);
    }
    while (state.records.size > KEEP) state.records.delete(state.records.keys().next().value);
    const series = state.series;
    if (endpoints.cursor < state.cursors.endpoints) series.samples = []; // the gateway restarted
    state.cursors.endpoints = endpoints.cursor;
    Object.assign(series, { fields: endpoints.fields, pools: endpoints.pools, window_s: endpoints.window_s, interval_s: endpoints.interval_s });
    series.samples = series.samples.concat(endpoints.samples);
    const last = series.samples.length ? series.samples[series.samples.length - 1][0] : 0;
    series.samples = series.samples.filter(([at]) => at >= last - series.window_s);
    state.polled = Date.now();
    draw();
  }

  function live(on, text) {
    $("live").className = `dot ${on ? "on" : "off"}`;
    $("updated").textContent = text;
  }

  function signIn(message) {
    clearTimeout(state.timer);
    state.token = null;
    sessionStorage.removeItem(TOKEN);
    $("board").hidden = true;
    $("signout").hidden = true;
    $("signin").hidden = false;
    $("refused").textContent = message || "";
    live(false, "signed out");
    $("live").className = "dot";
    $("token").focus();
  }

  function start(token) {
    state.token = token;
    if (token) sessionStorage.setItem(TOKEN, token);
    $("signin").hidden = true;
    $("board").hidden = false;
    $("signout").hidden = !token;
    live(false, "connecting");
    poll();
  }

  // ---- drawing

  function draw() {
    drawEndpoints();
    drawBatches();
    if (state.selected === null && state.records.size) state.selected = sorted()[0].id; // the newest, at first
    drawList();
    const chosen = state.records.get(state.selected);
    if (chosen && chosen !== state.drawn) drawDetail(chosen);
  }

  function sorted() {
    return [...state.records.values()].sort((a, b) => (b.at || 0) - (a.at || 0));
  }

  function matches(record, words) {
    if (!words) return true;
    const placement = record.placement || {};
    const text = [record.id, record.path, record.model, record.surface, record.status, placement.endpoint, placement.pool, (record.error || {}).code, record.replica].join(" ").toLowerCase();
    return words.split(/\s+/).every((word) => text.includes(word));
  }

  function drawList() {
    const words = $("filter").value.trim().toLowerCase();
    const all = sorted();
    const shown = all.filter((r) => matches(r, words));
    $("count").textContent = `${shown.length} of ${all.length}`;
    $("none").hidden = all.length > 0;
    put($("records"), shown.map(row));
  }

  function row(record) {
    const where = record.placement ? record.placement.endpoint : record.upstream && record.upstream.server;
    const tags = [
      record.replica && el("span", { class: "tag replica", "data-replica": record.replica, title: "the replica that served it", text: `@ ${record.replica}` }),
      record.task && el("span", { class: "tag task", text: `task: ${record.task.turns || (record.task.trace || []).length} turns` }),
      record.pii && el("span", { class: "tag pii", text: `PII: ${record.pii.map((f) => f.type.toLowerCase()).join(", ")}` }),
      record.error && el("span", { class: `tag ${refusal(record) ? "denied" : ""}`, text: record.error.code }),
    ];
    return el(
      "li",
      { class: record.id === state.selected ? "on" : null, "data-id": record.id, on: { click: () => select(record.id) } },
      el("span", { class: `pill s${String(record.status || 0)[0]}`, text: record.status || "…" }),
      el("span", { class: "what", text: `${record.path || ""}${record.model ? `  ${record.model}` : ""}` }),
      el("span", { class: "ms", text: ms(record.ms) }),
      el("span", { class: "meta" }, el("span", { class: "mono", text: short(record.id) }), el("span", { text: ago(record.at) }), where && el("span", { text: `→ ${where}` }), tags),
    );
  }

  function refusal(record) {
    return [401, 403].includes(record.status) || /denied|blocked|forbidden|unauthenticated|role/.test(record.error.code || "");
  }

  function select(id) {
    state.selected = id;
    state.entry = null;
    for (const item of $("records").children) item.classList.toggle("on", item.dataset.id === id);
    drawDetail(state.records.get(id));
  }

  function drawDetail(record) {
    state.drawn = record;
    if (!record) return;
    const entry = record.task && state.entry !== null ? record.task.trace[state.entry] : null;
    const shown = entry || record;
    put(
      $("detail"),
      el(
        "header",
        {},
        el("span", { class: `pill s${String(record.status || 0)[0]}`, text: record.status || "…" }),
        el("h2", { text: record.path || "" }),
        el("span", { class: "mono", text: record.id }),
      ),
      facts(record),
      el("h3", { text: "Timeline" }, el("small", { text: record.task ? "steps, then each call of the task on the same axis: click one" : "steps as they ran; bars that overlap ran in parallel" })),
      timeline(record),
      entry && el("h3", { text: `Call: ${label(entry)}` }, el("small", {}, el("a", { href: "#", on: { click: (event) => { event.preventDefault(); state.entry = null; drawDetail(record); } } }, "back to the task"))),
      entry && facts(entry),
      entry && timeline(entry),
      placement(shown.placement),
      decisions(shown),
    );
  }

  function facts(record) {
    const intent = record.intent;
    const pairs = [
      ["When", record.at ? `${new Date(record.at * 1000).toLocaleTimeString()} (${ago(record.at)})` : null],
      ["Caller", record.who],
      ["Served by", record.replica],
      ["Surface", record.surface],
      ["Model", record.model],
      ["Took", ms(record.ms)],
      ["Intent", intent && `${intent.task_type} (${intent.class}, confidence ${num(intent.confidence)})`],
      ["Task", record.task && `${record.task.task || ""} · ${record.task.turns ?? "-"} turns, ${record.task.tool_calls ?? "-"} tool calls, ${record.task.denied ?? 0} denied`],
    ];
    return el("dl", { class: "facts" }, pairs.filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
  }

  function label(entry) {
    if (entry.kind === "model_turn") return `turn ${entry.turn}${entry.placement ? ` → ${entry.placement.endpoint}` : ""}`;
    if (entry.kind === "tool_call") return `${entry.tool || entry.model}${entry.allowed === false ? " (denied)" : ""}`;
    return `${entry.step || entry.kind || "call"}`;
  }

  // rows of bars on one time axis: [{label, sub, bars: [{start, end, cls, kind, name, title}], click}]
  function rowsOf(record) {
    const rows = (record.steps || []).map(([name, outcome, start, took]) => ({
      label: name,
      bars: [{ start: start || 0, end: (start || 0) + (took || 0), cls: outcome, kind: "step", name, title: `${name}: ${outcome}, ${ms(took)} from +${ms(start)}` }],
    }));
    const up = record.upstream;
    if (up && Array.isArray(up.attempts) && up.started_ms !== undefined) {
      let at = up.started_ms;
      const bars = up.attempts.map(([endpoint, took, status]) => {
        const bar = { start: at, end: at + (took || 0), cls: `attempt ${typeof status === "number" && status < 400 ? "" : "err"}`, kind: "attempt", name: endpoint, title: `${endpoint}: ${status} after ${ms(took)}` };
        at += took || 0;
        return bar;
      });
      if (record.ms > at) bars.push({ start: at, end: record.ms, cls: "relay", kind: "relay", name: "relay", title: `answer relayed until +${ms(record.ms)}` });
      rows.push({ label: `upstream ${up.endpoint || ""}`, bars });
    } else if (up && up.ms !== undefined && record.ms) {
      rows.push({ label: `upstream ${up.server || ""}`, bars: [{ start: Math.max(0, record.ms - up.ms), end: record.ms, cls: "attempt", kind: "attempt", name: up.server, title: `${up.server}/${up.tool}: ${up.outcome}, ${ms(up.ms)}` }] });
    }
    ((record.task && record.task.trace) || []).forEach((entry, index) => {
      const denied = entry.allowed === false || (entry.status || 0) >= 400;
      rows.push({
        label: label(entry),
        sub: true,
        on: index === state.entry,
        click: () => { state.entry = index; drawDetail(record); },
        bars: [{ start: entry.start || 0, end: (entry.start || 0) + (entry.ms || 0), cls: denied ? "denied" : entry.kind, kind: "call", name: label(entry), title: `${label(entry)}: ${entry.status}, ${ms(entry.ms)} from +${ms(entry.start)}` }],
      });
    });
    return rows;
  }

  function timeline(record) {
    const rows = rowsOf(record);
    const end = Math.max(record.ms || 0, ...rows.flatMap((r) => r.bars.map((b) => b.end)), 0.001);
    const place = (node, start, stop) => {
      node.style.left = `${(100 * start) / end}%`;
      if (stop !== undefined) node.style.width = `${(100 * Math.max(0, stop - start)) / end}%`;
      return node;
    };
    const step = nice(end / 5);
    const ticks = [];
    for (let t = 0; t <= end + 1e-9; t += step) ticks.push(place(el("div", { class: "tick" }, el("span", { text: ms(t) })), t));
    const axis = el("div", { class: "tl-row tl-axis" }, el("span", { class: "tl-label" }), el("div", { class: "tl-track" }, ticks));
    const body = rows.map((r) =>
      el(
        "div",
        { class: `tl-row${r.sub ? " sub" : ""}${r.on ? " on" : ""}`, on: r.click ? { click: r.click } : null },
        el("span", { class: "tl-label", title: r.label, text: r.label }),
        el("div", { class: "tl-track" }, r.bars.map((b) => place(el("div", { class: `bar ${b.cls}`, "data-kind": b.kind, "data-name": b.name, title: b.title }), b.start, b.end))),
      ),
    );
    return el("div", { class: "timeline", "data-end-ms": end }, axis, body);
  }

  function nice(raw) {
    const power = 10 ** Math.floor(Math.log10(raw));
    return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
  }

  function placement(p) {
    if (!p) return null;
    const candidates = Object.entries(p.candidates || {});
    const scorers = [...new Set(candidates.flatMap(([, s]) => Object.keys(s)))].filter((k) => k !== "total");
    candidates.sort((a, b) => (b[1].total || 0) - (a[1].total || 0));
    const cached = p.engine_cached_tokens;
    const cache = cached === undefined ? `predicted ${p.predicted_cached_tokens ?? 0} tokens` : `${cached > 0 ? "hit" : "miss"}: engine served ${cached} tokens from cache (predicted ${p.predicted_cached_tokens ?? 0})`;
    return [
      el("h3", { text: "Placement" }),
      el(
        "dl",
        { class: "facts" },
        [["Pool", `${p.pool}${p.region ? ` (${p.region})` : ""}`], ["Endpoint", p.endpoint], ["Class", p.class], ["Picker", p.picker], ["Prefix cache", cache], ["Fallbacks", (p.fallbacks || []).join(", ") || "none"]]
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]),
      ),
      el("p", { class: "reason", text: p.reason }),
      candidates.length
        ? el(
            "table",
            { class: "scores" },
            el("thead", {}, el("tr", {}, el("th", { text: "candidate" }), scorers.map((s) => el("th", { class: "num", text: s })), el("th", { class: "num", text: "total" }))),
            el("tbody", {}, candidates.map(([name, s]) => el("tr", { class: name === p.endpoint ? "chosen" : null }, el("td", { text: name }), scorers.map((k) => el("td", { class: "num", text: num(s[k]) })), el("td", { class: "num", text: num(s.total) })))),
          )
        : null,
      p.refused && el("ul", { class: "plain reason" }, Object.entries(p.refused).map(([name, why]) => el("li", { text: `${name}: refused, ${why}` }))),
    ];
  }

  function decisions(record) {
    const parts = [];
    const error = record.error;
    if (error) {
      const d = error.decision;
      parts.push(
        el(
          "div",
          { class: "denial" },
          el("b", { text: `${error.code}` }),
          error.step && ` at step ${error.step}`,
          el("div", { text: error.message }),
          d && el("div", { class: "reason", text: `${d.name}: ${d.outcome}${d.rule ? ` by rule ${d.rule}` : ""}${d.reason ? `: ${d.reason}` : ""}${d.sources ? ` (${Object.values(d.sources).join("; ")})` : ""}` }),
        ),
      );
    }
    const grant = record.grant;
    if (grant) {
      parts.push(el("dl", { class: "facts" }, [
        ["Grant", `task ${short(grant.task)}${grant.new_task ? " (new)" : ""}, profile ${grant.profile}`],
        ["May use", grant.granted.join(", ") || "no tools"],
        ["May not", Object.entries(grant.denied).map(([t, why]) => `${t} (${why})`).join("; ") || "-"],
      ].map(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })])));
      if (grant.decisions) {
        parts.push(table(["call", "outcome", "rule", "reason"], grant.decisions.map((d) => [d.name, d.outcome, d.rule || "-", d.reason || ""])));
      }
    }
    if (record.pii) parts.push(el("h3", { text: "Personal data" }), table(["type", "found", "action", "in"], record.pii.map((f) => [f.type, f.count, f.action, f.where])));
    return parts.length ? [el("h3", { text: "Decisions" }), parts] : null;
  }

  function table(head, rows) {
    return el("table", {}, el("thead", {}, el("tr", {}, head.map((h) => el("th", { text: h })))), el("tbody", {}, rows.map((r) => el("tr", {}, r.map((v) => el("td", { text: v }))))));
  }

  // ---- endpoints

  function drawEndpoints() {
    const { fields, pools, samples, window_s: span } = state.series;
    const names = Object.keys(pools).sort((a, b) => (pools[a] + a).localeCompare(pools[b] + b));
    if (!names.length) return;
    const at = (name, field) => samples.map(([t, values]) => [t, values[name] ? values[name][fields.indexOf(field)] : null]);
    const end = samples.length ? samples[samples.length - 1][0] : 0;
    // the axis spans what was sampled (at least a minute), up to the window kept
    const from = Math.min(end - 60, Math.max(samples.length ? samples[0][0] : end, end - span));
    $("window").textContent = `last ${Math.max(1, Math.round((end - from) / 60))} of ${Math.round(span / 60)} min, every ${state.series.interval_s} s`;
    put($("endpoints"), names.map((name) => card(name, pools[name], at, from, end - from)));
  }

  function card(name, pool, at, from, span) {
    const latest = (field) => { const seen = at(name, field).filter(([, v]) => v !== null); return seen.length ? seen[seen.length - 1][1] : null; };
    const breaker = latest("breaker") || "closed";
    const healthy = latest("healthy");
    const x = (t) => (100 * (t - from)) / span;
    const load = ["running", "waiting", "inflight"].map((f) => at(name, f));
    const top = Math.max(1, ...load.flat().map(([, v]) => v || 0));
    const line = (points, scale, area) => {
      const kept = points.filter(([, v]) => v !== null).map(([t, v]) => `${x(t).toFixed(2)},${(40 - (38 * v) / scale).toFixed(2)}`);
      if (!kept.length) return "";
      return area ? `${kept[0].split(",")[0]},40 ${kept.join(" ")} ${kept[kept.length - 1].split(",")[0]},40` : kept.join(" ");
    };
    const bands = at(name, "breaker").map(([t, state], i, all) => {
      const down = at(name, "healthy")[i][1] === false;
      const cls = state === "open" || state === "half_open" ? state : down ? "down" : null;
      const next = i + 1 < all.length ? all[i + 1][0] : t + 2;
      return cls && svg("rect", { class: cls, x: x(t), y: 0, width: Math.max(0.5, x(next) - x(t)), height: 40 });
    });
    const chart = (kids, title) => svg("svg", { class: "chart", viewBox: "0 0 100 40", preserveAspectRatio: "none", role: "img", "aria-label": title }, kids);
    const poly = (cls, points) => svg(cls === "running" || cls === "hit" ? "polygon" : "polyline", { class: cls, points, "vector-effect": "non-scaling-stroke" });
    return el(
      "div",
      { class: "card", "data-endpoint": name },
      el("header", {}, el("b", { text: name }), el("span", { text: pool }), healthy === false && el("span", { class: "pill open", text: "down" }), el("span", { class: `pill ${breaker}`, text: `breaker ${breaker.replace("_", " ")}` })),
      el(
        "div",
        { class: "figures" },
        [["running", latest("running")], ["waiting", latest("waiting")], ["in flight", latest("inflight")], ["cache hits", latest("cache_hit_rate")]].map(([k, v], i) => el("div", {}, el("b", { text: i === 3 ? pct(v) : num(v) }), el("span", { text: k }))),
      ),
      chart([bands, poly("running", line(load[0], top, true)), poly("waiting", line(load[1], top)), poly("inflight", line(load[2], top))], `load of ${name}, up to ${num(top)}`),
      el("div", { class: "legend" }, ["running", "waiting", "inflight"].map((f) => el("span", {}, el("i", { class: f }), f === "inflight" ? "in flight" : f)), el("span", { text: `max ${num(top)}` })),
      chart([poly("hit", line(at(name, "cache_hit_rate"), 1, true))], `prefix cache hit rate of ${name}`),
      el("div", { class: "legend" }, el("span", {}, el("i", { class: "hit" }), "prefix cache hit rate")),
    );
  }

  // ---- batch jobs

  const TONE = { completed: "s2", in_progress: "s3", finalizing: "s3", failed: "s5", expired: "s5", cancelling: "s4", cancelled: "s4" };

  function drawBatches() {
    const answer = state.batches;
    $("jobs").hidden = !(answer && answer.enabled);
    if ($("jobs").hidden) return;
    const jobs = answer.batches;
    $("held").textContent = answer.held > jobs.length ? `newest ${jobs.length} of ${answer.held}` : String(jobs.length);
    $("nojobs").hidden = jobs.length > 0;
    const head = ["job", "status", "progress", "queued · running", "class", "pools", "cost", "created"];
    const th = (h) => el("th", { class: h === "cost" || h.startsWith("queued") ? "num" : null, text: h });
    put($("batches"), jobs.length ? [el("thead", {}, el("tr", {}, head.map(th))), el("tbody", {}, jobs.map(batch))] : []);
  }

  function batch(job) {
    const counts = job.request_counts || {};
    const done = (counts.completed || 0) + (counts.failed || 0);
    const pools = Object.entries(job.pools || {}).map(([pool, n]) => `${pool} ${n}`).join(", ");
    const usage = job.usage || {};
    return el(
      "tr",
      { "data-id": job.id },
      el("td", { title: `${job.id}${job.who ? ` by ${job.who}` : ""}` }, el("span", { class: "mono", text: job.id.replace(/^batch_/, "").slice(0, 8) }), " ", el("small", { text: job.endpoint })),
      el("td", {}, el("span", { class: `pill ${TONE[job.status] || ""}`, text: job.status.replace("_", " ") })),
      el("td", {}, el("progress", { max: counts.total || 1, value: done }), `${done} of ${counts.total ?? "-"}${counts.failed ? `, ${counts.failed} failed` : ""}`),
      el("td", { class: "num", text: `${job.queued} · ${job.running}` }),
      el("td", { text: job.class }),
      el("td", { text: pools || "-" }),
      el("td", { class: "num", title: `${usage.input_tokens} in (${usage.cached_tokens} cached), ${usage.output_tokens} out`, text: job.cost === null ? "-" : num(job.cost) }),
      el("td", { title: `expires ${new Date(job.expires_at * 1000).toLocaleString()}`, text: ago(job.created_at) }),
    );
  }

  // ---- start

  $("signin").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = $("token").value.trim().replace(/^bearer\s+/i, "");
    if (token) start(token);
  });
  $("signout").addEventListener("click", () => signIn(""));
  $("filter").addEventListener("input", drawList);
  setInterval(() => {
    if (!state.polled) return;
    const seconds = Math.round((Date.now() - state.polled) / 1000);
    if ($("live").classList.contains("on")) $("updated").textContent = seconds < 2 ? "live" : `live · updated ${seconds} s ago`;
  }, 1000);
  if (state.token) start(state.token);
  else
    fetch("/ui/api/access", { cache: "no-store" })
      .then((resp) => resp.json())
      .then((access) => (access.token === "none" ? start("") : signIn("")))
      .catch(() => signIn("cannot reach the gateway"));
})();
