// svmkit toy: the page's drawing and controls. The server fits; this file draws what it answers.
"use strict";

const CLASS_COLOURS = { "1": [33, 102, 172], "-1": [214, 47, 39], "2": [26, 152, 80] };
const SPARE_COLOURS = [[118, 42, 131], [230, 145, 56], [90, 90, 90]];
const RING_COLOURS = ["", "#00a000", "#ff9900", "#d0009f"];  // KKT rank 1, 2, 3 (rank 0: no ring)
const ONE_KIND = [40, 40, 40];
const GRID = 120;

const canvas = document.getElementById("plot");
const ctx = canvas.getContext("2d");
const $ = (id) => document.getElementById(id);

const state = {
  points: [],           // [x, y, label]; regression: y is the target
  history: [],          // earlier states of points/dim/view, for Undo
  dim: 2,
  view: [-1, 1, -1, 1],
  label: 1,
  answer: null,         // the server's last answer, for the points it was trained on
  sequence: 0,
  presets: {},
};

function svmType() { return Number($("svm-type").value); }
function isRegression() { return svmType() >= 3; }
function isOneClass() { return svmType() === 2; }

// ---- coordinates -----------------------------------------------------------------------------
function toPixel(x, y) {
  const [x0, x1, y0, y1] = state.view;
  return [(x - x0) / (x1 - x0) * canvas.width, canvas.height - (y - y0) / (y1 - y0) * canvas.height];
}
function toData(px, py) {
  const [x0, x1, y0, y1] = state.view;
  return [x0 + px / canvas.width * (x1 - x0), y0 + (canvas.height - py) / canvas.height * (y1 - y0)];
}
function colourOf(label) {
  if (isRegression() || isOneClass()) return ONE_KIND;
  const key = String(label);
  if (CLASS_COLOURS[key]) return CLASS_COLOURS[key];
  const labels = [...new Set(state.points.map((p) => p[2]))].filter((l) => !CLASS_COLOURS[String(l)]).sort((a, b) => a - b);
  return SPARE_COLOURS[Math.max(0, labels.indexOf(label)) % SPARE_COLOURS.length];
}
const rgb = (c, a = 1) => `rgba(${c[0]},${c[1]},${c[2]},${a})`;

// ---- options <-> controls ----------------------------------------------------------------------
function buildOptions() {
  const s = svmType(), t = Number($("kernel").value);
  const parts = [`-s ${s}`, `-t ${t}`];
  if (s === 0 || s === 3 || s === 4) parts.push(`-c ${s === 0 && $("hard").checked ? "inf" : $("C").value}`);
  if (s === 1 || s === 2 || s === 4) parts.push(`-n ${$("nu").value}`);
  if (s === 3) parts.push(`-p ${$("epsilon").value}`);
  if (t !== 0) parts.push(`-g ${$("gamma").value}`);
  if (t === 1) parts.push(`-d ${$("degree").value}`);
  if (t === 1 || t === 3) parts.push(`-r ${$("coef0").value}`);
  $("options").value = parts.join(" ");
}
function applyOptions(text) {
  // The controls follow a typed option string where they can; the string itself is what is sent.
  const words = text.trim().split(/\s+/);
  const fields = { s: "svm-type", t: "kernel", c: "C", g: "gamma", d: "degree", r: "coef0", n: "nu", p: "epsilon" };
  // svm-train's defaults where the string leaves a parameter out (gamma: 1 / number of features)
  const defaults = { "svm-type": "0", kernel: "2", C: "1", degree: "3", coef0: "0", nu: "0.5", epsilon: "0.1" };
  for (const [id, value] of Object.entries(defaults)) $(id).value = value;
  $("hard").checked = false;
  for (let i = 0; i + 1 < words.length; i++) {
    const flag = words[i].replace(/^-/, ""), value = words[i + 1];
    if (!words[i].startsWith("-") || !(flag in fields)) continue;
    if (flag === "c") {
      $("hard").checked = /^inf/i.test(value);
      if (!$("hard").checked) $("C").value = value;
    } else if (flag === "s" || flag === "t") {
      const select = $(fields[flag]);
      if ([...select.options].some((o) => o.value === value)) select.value = value;
    } else {
      $(fields[flag]).value = value;
    }
  }
  if (!words.includes("-g")) $("gamma").value = String(isRegression() || state.dim === 1 ? 1 : 0.5);
  const gamma = Number($("gamma").value);
  if (gamma > 0) $("sigma").value = (1 / Math.sqrt(2 * gamma)).toPrecision(4);
}

// ---- points --------------------------------------------------------------------------------------
function remember() {
  state.history.push({ points: state.points.map((p) => p.slice()), dim: state.dim, view: state.view.slice() });
  if (state.history.length > 200) state.history.shift();
}
function setPoints(points, dim, view) {
  state.points = points; state.dim = dim; state.view = view; state.answer = null;
  showMessage("");
  $("point-info").textContent = "";
  $("panel").innerHTML = "";
  draw();
  if ($("live").checked) train();
}
function nearestPoint(px, py, radius) {
  let best = -1, bestDistance = radius * radius;
  state.points.forEach((p, i) => {
    const [qx, qy] = toPixel(p[0], p[1]);
    const d = (qx - px) ** 2 + (qy - py) ** 2;
    if (d <= bestDistance) { best = i; bestDistance = d; }
  });
  return best;
}
function eventPixel(event) {
  const box = canvas.getBoundingClientRect();
  return [(event.clientX - box.left) * canvas.width / box.width, (event.clientY - box.top) * canvas.height / box.height];
}
canvas.addEventListener("click", (event) => {
  const [px, py] = eventPixel(event);
  const near = nearestPoint(px, py, 4);
  if (near >= 0) { showPoint(near, px, py); return; }  // (a tap on a point reads it)
  let [x, y] = toData(px, py);
  if (state.dim === 1 && !isRegression()) y = 0;
  remember();
  setPoints([...state.points, [x, y, isRegression() || isOneClass() ? 1 : state.label]], state.dim, state.view);
});
canvas.addEventListener("mousemove", (event) => {
  const [px, py] = eventPixel(event);
  const near = nearestPoint(px, py, 8);
  if (near >= 0) showPoint(near, px, py); else $("tip").style.display = "none";
});
canvas.addEventListener("mouseleave", () => { $("tip").style.display = "none"; });

function format(v) {  // 4 decimals, or 4 digits in exponent form for the very large and small; text as it is
  if (typeof v !== "number") return String(v);
  return Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : v.toFixed(4);
}

function pointText(i) {
  const [x, y, label] = state.points[i];
  const lines = [`point ${i + 1}: x = ${format(x)}` + (state.dim === 2 || isRegression() ? `, y = ${format(y)}` : "")
                 + (isRegression() || isOneClass() ? "" : `, class ${label}`)];
  const answer = state.answer;
  if (answer && answer.points && answer.points[i]) {
    for (const entry of answer.points[i]) {
      const value = "yf" in entry ? ["y f(x)", entry.yf] : "f" in entry ? ["f(x)", entry.f] : ["y - f(x)", entry.residual];
      const problem = answer.problems.length > 1 ? `${entry.problem}: ` : "";
      lines.push(`${problem}alpha = ${format(entry.alpha)}  mu = C - alpha = ${format(entry.mu)}`);
      lines.push(`  xi = ${format(entry.xi)}  ${value[0]} = ${format(value[1])}  (${entry.category})`);
    }
  }
  return lines.join("\n");
}
function showPoint(i, px, py) {
  const text = pointText(i);
  $("point-info").textContent = text;
  const tip = $("tip"), box = canvas.getBoundingClientRect();
  tip.textContent = text;
  tip.style.left = `${window.scrollX + box.left + px * box.width / canvas.width + 14}px`;
  tip.style.top = `${window.scrollY + box.top + py * box.height / canvas.height + 14}px`;
  tip.style.display = "block";
}

// ---- drawing ---------------------------------------------------------------------------------------
function unpack(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new Float32Array(bytes.buffer);
}

function shade(nx, ny, colourAt) {
  // colourAt(i, j) -> [r, g, b, a] for grid point (i, j), j counted from ymin up
  const image = new ImageData(nx, ny);
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      const c = colourAt(i, j), k = 4 * ((ny - 1 - j) * nx + i);
      image.data[k] = c[0]; image.data[k + 1] = c[1]; image.data[k + 2] = c[2]; image.data[k + 3] = c[3];
    }
  }
  const small = document.createElement("canvas");
  small.width = nx; small.height = ny;
  small.getContext("2d").putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = true;
  // grid points sit on the view's edges: half a cell beyond them on each side
  const w = canvas.width, h = canvas.height;
  ctx.drawImage(small, -w / (2 * (nx - 1)), -h / (2 * (ny - 1)), w * nx / (nx - 1), h * ny / Math.max(ny - 1, 1));
}

function contour(f, nx, ny, level, style, width) {
  // marching squares on the grid of decision values
  const [x0, x1, y0, y1] = state.view;
  const X = (i) => x0 + i * (x1 - x0) / (nx - 1), Y = (j) => y0 + j * (y1 - y0) / (ny - 1);
  ctx.save(); ctx.strokeStyle = style; ctx.lineWidth = width; ctx.beginPath();
  const at = (i, j) => f[j * nx + i] - level;
  const cross = (a, b, pa, pb) => { const t = a / (a - b); return [pa[0] + t * (pb[0] - pa[0]), pa[1] + t * (pb[1] - pa[1])]; };
  for (let j = 0; j + 1 < ny; j++) {
    for (let i = 0; i + 1 < nx; i++) {
      const corners = [[i, j], [i + 1, j], [i + 1, j + 1], [i, j + 1]];
      const v = corners.map(([a, b]) => at(a, b));
      const p = corners.map(([a, b]) => [X(a), Y(b)]);
      const hits = [];
      for (let e = 0; e < 4; e++) {
        const a = v[e], b = v[(e + 1) % 4];
        if ((a < 0) !== (b < 0)) hits.push(cross(a, b, p[e], p[(e + 1) % 4]));
      }
      for (let k = 0; k + 1 < hits.length; k += 2) {
        const [ax, ay] = toPixel(...hits[k]), [bx, by] = toPixel(...hits[k + 1]);
        ctx.moveTo(ax, ay); ctx.lineTo(bx, by);
      }
    }
  }
  ctx.stroke(); ctx.restore();
}

function verticalLevels(f, nx, level, style, width) {
  // points on a line: where f(x) = level, a vertical line
  const [x0, x1] = state.view;
  ctx.save(); ctx.strokeStyle = style; ctx.lineWidth = width; ctx.beginPath();
  for (let i = 0; i + 1 < nx; i++) {
    const a = f[i] - level, b = f[i + 1] - level;
    if ((a < 0) !== (b < 0)) {
      const x = x0 + (i + a / (a - b)) * (x1 - x0) / (nx - 1), px = toPixel(x, 0)[0];
      ctx.moveTo(px, 0); ctx.lineTo(px, canvas.height);
    }
  }
  ctx.stroke(); ctx.restore();
}

function drawRegions(answer) {
  const [nx, ny] = answer.grid;
  if (answer.label) {  // three classes: the predicted class, and where it changes
    const colours = answer.classes.map((c) => colourOf(c));
    shade(nx, ny, (i, j) => [...colours[answer.label[j * nx + i]], 70]);
    answer.classes.forEach((_, c) => {  // the edge of each class's region: its indicator's level 0
      const inside = Float32Array.from(answer.label, (label) => (label === c ? 1 : -1));
      contour(inside, nx, ny, 0, "#000", 2.5);
    });
    return;
  }
  const f = unpack(answer.f);
  if (isRegression()) {  // f(x) and the tube f(x) +- epsilon
    const [x0, x1] = state.view;
    for (const [shift, dash] of [[0, []], [answer.epsilon, [6, 4]], [-answer.epsilon, [6, 4]]]) {
      ctx.save(); ctx.strokeStyle = "#000"; ctx.lineWidth = 2; ctx.setLineDash(dash); ctx.beginPath();
      for (let i = 0; i < nx; i++) {
        const [px, py] = toPixel(x0 + i * (x1 - x0) / (nx - 1), f[i] + shift);
        if (i === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
      }
      ctx.stroke(); ctx.restore();
    }
    return;
  }
  // shading deepens up to the margins |f| = 1 (one-class: up to the largest |f|)
  let scale = 1;
  if (isOneClass()) { scale = 1e-12; for (const v of f) scale = Math.max(scale, Math.abs(v)); }
  const positive = isOneClass() ? [120, 180, 120] : colourOf(answer.classes[1]);
  const negative = isOneClass() ? [235, 235, 235] : colourOf(answer.classes[0]);
  const ny1 = ny === 1 ? 2 : ny;
  const value = ny === 1 ? (i) => f[i] : (i, j) => f[j * nx + i];
  shade(nx, ny1, (i, j) => {
    const v = value(i, j), strength = Math.min(1, Math.abs(v) / scale);
    return [...(v > 0 ? positive : negative), 40 + 80 * strength];
  });
  // the boundary f = 0 in black, the margins f = +1 and -1 thinner in grey
  const levels = isOneClass() ? [[0, 2.5, "#000"]] : [[0, 2.5, "#000"], [1, 1.5, "#555"], [-1, 1.5, "#555"]];
  for (const [level, width, colour] of levels) {
    if (ny === 1) verticalLevels(f, nx, level, colour, width); else contour(f, nx, ny, level, colour, width);
  }
}

function draw() {
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, canvas.width, canvas.height);
  if (state.answer && state.answer.grid) drawRegions(state.answer);
  if (state.dim === 1 && !isRegression()) {
    const py = toPixel(0, 0)[1];
    ctx.save(); ctx.strokeStyle = "#777"; ctx.beginPath(); ctx.moveTo(0, py); ctx.lineTo(canvas.width, py); ctx.stroke(); ctx.restore();
  }
  const points = state.answer && state.answer.points;
  state.points.forEach((p, i) => {
    const [px, py] = toPixel(p[0], p[1]);
    ctx.fillStyle = rgb(colourOf(p[2])); ctx.strokeStyle = "#fff"; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.arc(px, py, 4.5, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    const rank = points && points[i] ? Math.max(0, ...points[i].map((e) => e.rank)) : 0;
    if (rank > 0) {
      ctx.strokeStyle = RING_COLOURS[rank] || "#000"; ctx.lineWidth = 2.5;
      ctx.beginPath(); ctx.arc(px, py, 8.5, 0, 2 * Math.PI); ctx.stroke();
    }
  });
  $("point-count").textContent = `${state.points.length} points`;
  drawLegend();
}

function drawLegend() {
  const answer = state.answer;
  if (!answer || !answer.categories) { $("legend").textContent = ""; return; }
  $("legend").innerHTML = "";
  answer.categories.forEach((name, rank) => {
    if (rank === 0) return;
    const item = document.createElement("span");
    item.style.marginRight = "12px";
    item.innerHTML = `<span class="swatch" style="border-color:${RING_COLOURS[rank]}"></span> `;
    item.append(name);
    $("legend").append(item);
  });
}

// ---- the panel ---------------------------------------------------------------------------------------
function hyperplane(w, b) {
  if (!w) return null;
  let text = w.map((v, k) => `${k === 0 ? (v < 0 ? "-" : "") : (v < 0 ? " - " : " + ")}${Math.abs(v).toFixed(3)} x${k + 1}`).join("");
  return text + `${b < 0 ? " - " : " + "}${Math.abs(b).toFixed(3)}`;
}
function cell(row, text, id, value) {
  const td = document.createElement("td");
  td.textContent = text;
  if (id) td.id = id;
  if (value !== undefined) td.dataset.value = String(value);
  row.append(td);
}
function showPanel(answer, totalMs) {
  const table = $("panel");
  table.innerHTML = "";
  const add = (name, values, key, show = format) => {
    const row = document.createElement("tr");
    const th = document.createElement("th"); th.textContent = name; row.append(th);
    values.forEach((v, p) => cell(row, Number.isInteger(v) ? String(v) : show(v), `${key}-${p}`, v));
    table.append(row);
  };
  const milliseconds = (v) => v.toFixed(1);
  const problems = answer.problems;
  if (problems.length > 1) add("problem", problems.map((p) => p.problem), "problem");
  if (problems[0].w) add("f(x)", problems.map((p) => hyperplane(p.w, p.b)), "hyperplane");
  add("b", problems.map((p) => p.b), "b");
  if ("margin" in problems[0]) add("margin 2/||w||", problems.map((p) => p.margin), "margin");
  add("primal objective", problems.map((p) => p.primal), "primal");
  add("dual objective", problems.map((p) => p.dual), "dual");
  add("duality gap", problems.map((p) => p.gap), "gap");
  add("support vectors", problems.map((p) => p.n_sv), "n-sv");
  add("solver steps", problems.map((p) => p.n_iter), "n-iter");
  if (problems.length > 1) add("support vectors (all)", [answer.n_sv], "n-sv-total");
  if ("loo_bound" in answer) add("leave-one-out bound", [answer.loo_bound], "loo");
  if ("epsilon" in answer) add("epsilon", [answer.epsilon], "epsilon");
  add("fit time (ms)", [answer.fit_ms], "fit-ms", milliseconds);
  add("trained and drawn in (ms)", [totalMs], "total-ms", milliseconds);
}

function showMessage(text, kind = "") {
  $("message").textContent = text;
  $("message").className = kind;
}

// ---- the server ------------------------------------------------------------------------------------------
async function post(path, body) {
  const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  let answer;
  try { answer = await response.json(); } catch (error) { answer = { error: `the server answered ${response.status} without JSON` }; }
  if (!response.ok && !answer.error) answer.error = `the server answered ${response.status}`;
  return answer;
}

async function train() {
  const start = performance.now();
  const sequence = ++state.sequence;
  applyOptions($("options").value);
  document.body.dataset.state = "training";
  const slow = setTimeout(() => { if (sequence === state.sequence) showMessage("training\u2026"); }, 300);
  let answer;
  try {
    answer = await post("/api/train", {
      options: $("options").value, points: state.points, dim: state.dim, view: state.view,
      resolution: state.dim === 1 || isRegression() ? [2 * GRID, 2] : [GRID, GRID],
    });
  } catch (error) {
    answer = { error: `no answer from the server (${error.message}); is svmkit toy still running?` };
  }
  clearTimeout(slow);
  if (sequence !== state.sequence) return;  // (a later request supersedes this one)
  if (answer.error || answer.not_separable) {
    state.answer = null;
    $("panel").innerHTML = "";
    draw();
    if (answer.not_separable) showMessage(`Not separable: ${answer.not_separable}`, "not-separable");
    else showMessage(answer.error, "error");
  } else {
    if (state.dim === 1 || isRegression()) answer.grid = [answer.grid[0], 1];
    state.answer = answer;
    draw();
    showMessage(answer.warnings.join("\n"), answer.warnings.length ? "warning" : "");
    showPanel(answer, performance.now() - start);
  }
  document.body.dataset.answers = String(Number(document.body.dataset.answers) + 1);
  document.body.dataset.state = "ready";
}

// ---- files and pictures ----------------------------------------------------------------------------------
function download(name, href) {
  const link = document.createElement("a");
  link.href = href; link.download = name;
  document.body.append(link); link.click(); link.remove();
}
function dataFileText() {
  return state.points.map(([x, y, label]) => {
    if (isRegression()) return `${y} 1:${x}`;
    const target = isOneClass() ? 1 : label;
    return state.dim === 1 ? `${target} 1:${x}` : `${target} 1:${x} 2:${y}`;
  }).join("\n") + "\n";
}
function viewAround(points) {
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const pad = (lo, hi) => { const d = Math.max(hi - lo, 1e-9) * 0.1 + (hi === lo ? 1 : 0); return [lo - d, hi + d]; };
  return [...pad(Math.min(...xs), Math.max(...xs)), ...pad(Math.min(...ys), Math.max(...ys))];
}
async function loadFile(file) {
  const answer = await post("/api/parse", { text: await file.text() });
  if (answer.error) { showMessage(`${file.name}: ${answer.error}`, "error"); return; }
  const oneFeature = answer.X[0].length === 1;
  let points, dim;
  if (isRegression()) {
    points = answer.X.map((row, i) => [row[0], answer.labels[i], 1]); dim = 1;
  } else {
    dim = oneFeature ? 1 : 2;
    points = answer.X.map((row, i) => [row[0], dim === 1 ? 0 : row[1], answer.labels[i]]);
  }
  remember();
  setPoints(points, dim, viewAround(points));
  showMessage(`${file.name}: ${points.length} points`);
}

// ---- wiring -------------------------------------------------------------------------------------------------
for (const button of document.querySelectorAll(".class-button")) {
  button.addEventListener("click", () => {
    state.label = Number(button.dataset.label);
    document.querySelectorAll(".class-button").forEach((b) => b.classList.toggle("chosen", b === button));
  });
}
for (const id of ["svm-type", "kernel", "C", "hard", "gamma", "degree", "coef0", "nu", "epsilon"]) {
  $(id).addEventListener("change", () => { buildOptions(); draw(); if ($("live").checked) train(); });
}
$("sigma").addEventListener("change", () => {
  const sigma = Number($("sigma").value);
  if (sigma > 0) { $("gamma").value = (1 / (2 * sigma * sigma)).toPrecision(4); buildOptions(); }
});
$("gamma").addEventListener("change", () => {
  const gamma = Number($("gamma").value);
  if (gamma > 0) $("sigma").value = (1 / Math.sqrt(2 * gamma)).toPrecision(4);
});
$("options").addEventListener("keydown", (event) => { if (event.key === "Enter") train(); });
$("train").addEventListener("click", () => train());
$("clear").addEventListener("click", () => { remember(); setPoints([], 2, [-1, 1, -1, 1]); });
$("undo").addEventListener("click", () => {
  const last = state.history.pop();
  if (last) setPoints(last.points, last.dim, last.view);
});
$("save-data").addEventListener("click", () => {
  download("svmkit-toy.txt", URL.createObjectURL(new Blob([dataFileText()], { type: "text/plain" })));
});
$("load-button").addEventListener("click", () => $("load-data").click());
$("load-data").addEventListener("change", () => {
  const file = $("load-data").files[0];
  if (file) loadFile(file);
  $("load-data").value = "";
});
$("save-picture").addEventListener("click", () => download("svmkit-toy.png", canvas.toDataURL("image/png")));

async function loadPresets() {
  const response = await fetch("/api/presets");
  state.presets = await response.json();
  for (const [name, preset] of Object.entries(state.presets)) {
    const button = document.createElement("button");
    button.id = `preset-${name}`;
    button.textContent = preset.title;
    button.addEventListener("click", () => {
      remember();
      $("options").value = preset.options;
      applyOptions(preset.options);
      state.points = preset.points.map((p) => p.slice()); state.dim = preset.dim; state.view = preset.view.slice();
      $("point-info").textContent = "";
      train();
    });
    $("presets").append(button, " ");
  }
}

buildOptions();
draw();
loadPresets().then(() => { document.body.dataset.state = "ready"; });
