/* gpuarch-report's page script (tools/report/report.js), inlined into every report by gpuarch_report.py.
 *
 * Draws the data embedded in <script id="report-data"> (made by gpuarch_report.py's build_report): the time-series
 * charts with the vendored uPlot, and the SM x time IPC heat maps with plain canvas code. When every chart has
 * drawn it sets body[data-charts] to their number and body[data-report-status] to "ok" (unless the error guard
 * that runs before this script already recorded an error): tests/report/test_report.py reads both in Chromium.
 */
(function () {
  "use strict";

  const data = JSON.parse(document.getElementById("report-data").textContent);
  const CHART_HEIGHT = 220;
  // The same stops as VIRIDIS in gpuarch_report.py (the PNG heat map).
  const VIRIDIS = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"];
  const NO_DATA = "#d0d0d0";
  const SYNC_KEY = "gpuarch-timeline";

  const plots = [];          // every uPlot, for zoom and resize
  const heatMaps = [];       // {host, run} per drawn heat map
  const drawn = [];          // one promise per chart, settled once it has drawn
  let xRange = data.x_range.slice();  // the cycle range shown (zoom changes it)

  // ---------------------------------------------------------------------------------------------------------
  // Number formats

  function fmtCycles(v) {
    if (v == null) return "–";
    const a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toPrecision(3) + "G";
    if (a >= 1e6) return (v / 1e6).toPrecision(3) + "M";
    if (a >= 1e4) return (v / 1e3).toPrecision(3) + "k";
    return String(Math.round(v));
  }

  function fmtValue(v) {
    if (v == null || !isFinite(v)) return "–";
    const a = Math.abs(v);
    if (a >= 1e4) return fmtCycles(v);
    if (a === 0) return "0";
    // Three significant digits without trailing zeros: 50, 0.5, 1.25.
    return a >= 100 ? v.toFixed(0) : String(Number(v.toPrecision(3)));
  }

  function fmtPercent(v) {
    return v == null || !isFinite(v) ? "–" : String(Number((100 * v).toFixed(1))) + "%";
  }

  function formatter(percent) {
    return percent ? fmtPercent : fmtValue;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Shared chart pieces

  // Every chart spans the whole cycle range of all runs, so that the charts line up and zoom together: a run
  // that ends early gets empty points at the range's ends.
  function spanWholeRange(shared) {
    // Copies: the arrays are the embedded data's, which every chart of the run reads.
    const table = shared.map(function (values) { return values.slice(); });
    const [x0, x1] = data.x_range;
    const xs = table[0];
    if (xs.length === 0 || xs[0] > x0) {
      table[0] = [x0].concat(table[0]);
      for (let s = 1; s < table.length; s++) table[s] = [null].concat(table[s]);
    }
    if (table[0][table[0].length - 1] < x1) {
      table[0].push(x1);
      for (let s = 1; s < table.length; s++) table[s].push(null);
    }
    return table;
  }

  const LABEL_ROW = 12;  // CSS px per run of launch labels above a chart's plot area

  // Kernel boundaries: a dashed line in the run's colour at each launch's first cycle, and the kernel's short
  // name above the plot area (one row per run, in the padding baseOptions reserves) where there is room for it.
  function launchMarkers(runIndexes) {
    return {
      hooks: {
        draw: [function (u) {
          const ctx = u.ctx;
          const pr = uPlot.pxRatio;
          const { left, top, width, height } = u.bbox;
          ctx.save();
          ctx.font = Math.round(10 * pr) + "px sans-serif";
          ctx.textAlign = "left";
          ctx.textBaseline = "bottom";
          runIndexes.forEach(function (runIndex, row) {
            const run = data.runs[runIndex];
            const xs = run.launches.map(function (l) { return Math.round(u.valToPos(l.begin, "x", true)); });
            const labelY = top - (runIndexes.length - 1 - row) * LABEL_ROW * pr - 2 * pr;
            ctx.strokeStyle = run.color;
            ctx.fillStyle = run.color;
            ctx.lineWidth = pr;
            ctx.setLineDash([4 * pr, 4 * pr]);
            run.launches.forEach(function (launch, i) {
              const x = xs[i];
              // A launch that starts left of a zoomed range still names the part that is shown.
              const next = i + 1 < xs.length ? xs[i + 1] : Infinity;
              if (next <= left || x > left + width) return;
              if (x >= left - 1) {
                ctx.beginPath();
                ctx.moveTo(x + 0.5, top);
                ctx.lineTo(x + 0.5, top + height);
                ctx.stroke();
              }
              const text = "#" + launch.launch + " " + launch.short;
              const start = Math.max(x, left) + 3 * pr;
              const room = Math.min(next, left + width) - start - 3 * pr;
              if (ctx.measureText(text).width <= room) ctx.fillText(text, start, labelY);
            });
          });
          ctx.restore();
        }],
      },
    };
  }

  // Zooming one chart zooms every chart and the heat maps to the same cycle range.
  let zooming = false;
  function followZoom(u, key) {
    if (key !== "x" || zooming) return;
    const min = u.scales.x.min, max = u.scales.x.max;
    if (min == null || max == null) return;
    zooming = true;
    try {
      plots.forEach(function (other) {
        if (other !== u && (other.scales.x.min !== min || other.scales.x.max !== max))
          other.setScale("x", { min: min, max: max });
      });
      if (xRange[0] !== min || xRange[1] !== max) {
        xRange = [min, max];
        heatMaps.forEach(drawHeatMap);
      }
    } finally {
      zooming = false;
    }
  }

  function baseOptions(chart, width, runIndexes) {
    const fmt = formatter(chart.percent);
    let resolveDrawn;
    drawn.push(new Promise(function (resolve) { resolveDrawn = resolve; }));
    return {
      width: width,
      height: CHART_HEIGHT,
      // Room above the plot for the launch labels, one row per run.
      padding: [runIndexes.length * LABEL_ROW + 4, 24, null, null],
      scales: { x: { time: false }, y: { range: function (u, min, max) {
        // From zero: these are counts and rates, and a floating baseline exaggerates small changes.
        const top = max == null || !(max > 0) ? 1 : max * 1.05;
        return [0, chart.percent ? Math.min(top, 1) || 1 : top];
      } } },
      axes: [
        { label: "GPU cycle", values: function (u, splits) { return splits.map(fmtCycles); } },
        { label: chart.y_label, size: 60, values: function (u, splits) { return splits.map(fmt); } },
      ],
      cursor: { sync: { key: SYNC_KEY }, drag: { x: true, y: false } },
      legend: { live: true },
      plugins: [launchMarkers(runIndexes)],
      hooks: { draw: [function () { resolveDrawn(); }], setScale: [followZoom] },
    };
  }

  function xSeries() {
    return { label: "cycle", value: function (u, v) { return fmtCycles(v); } };
  }

  // ---------------------------------------------------------------------------------------------------------
  // Time-series charts

  // One line per run and metric; the runs' own x points are joined onto one axis (uPlot.join leaves a run's
  // value undefined where only another run has a point, and the stepped path carries its value through).
  function lineChart(chart, host) {
    const runIndexes = [];
    const tables = [];
    const seriesOpts = [xSeries()];
    const fmt = formatter(chart.percent);
    chart.series.forEach(function (s) {
      let table = tables[runIndexes.indexOf(s.run)];
      if (table === undefined) {
        runIndexes.push(s.run);
        table = [data.runs[s.run].x];
        tables.push(table);
      }
      table.push(data.runs[s.run].metrics[s.metric]);
    });
    // uPlot.join keeps the tables' order, so the series options follow the same run-major order.
    runIndexes.forEach(function (runIndex) {
      chart.series.filter(function (s) { return s.run === runIndex; }).forEach(function (s) {
        seriesOpts.push({
          label: s.label,
          stroke: data.runs[runIndex].color,
          width: 1.5,
          dash: s.dash ? [6, 4] : undefined,
          paths: uPlot.paths.stepped({ align: 1 }),
          points: { show: false },
          value: function (u, v) { return fmt(v); },
        });
      });
    });
    const joined = spanWholeRange(tables.length === 1 ? tables[0] : uPlot.join(tables));
    const opts = baseOptions(chart, host.clientWidth, runIndexes);
    opts.series = seriesOpts;
    plots.push(new uPlot(opts, joined, host));
  }

  // One run's warp states, stacked: each series is the running total up to its state, and a band fills between
  // it and the one below; the legend shows each state's own share.
  function stackChart(chart, host) {
    const run = data.runs[chart.run];
    const raw = chart.series.map(function (s) { return run.metrics[s.metric]; });
    const totals = run.x.map(function () { return 0; });
    const stacked = raw.map(function (values) {
      return values.map(function (v, i) {
        if (v == null || totals[i] == null) {
          totals[i] = null;
          return null;
        }
        totals[i] += v;
        return totals[i];
      });
    });
    const seriesOpts = [xSeries()];
    chart.series.forEach(function (s, k) {
      seriesOpts.push({
        label: s.label,
        stroke: s.color,
        fill: s.color,
        width: 0,
        paths: uPlot.paths.stepped({ align: 1 }),
        points: { show: false },
        value: function (u, v, si, i) { return i == null ? "–" : fmtPercent(raw[k][i]); },
      });
    });
    const bands = [];
    for (let k = 2; k <= chart.series.length; k++)
      bands.push({ series: [k, k - 1], fill: chart.series[k - 1].color });
    const table = spanWholeRange([run.x].concat(stacked));
    // spanWholeRange may have put a point before the run's first: the raw values shift with it.
    const shift = table[0].length > run.x.length && table[0][0] !== run.x[0] ? 1 : 0;
    if (shift) raw.forEach(function (values, k) { raw[k] = [null].concat(values); });
    const opts = baseOptions(chart, host.clientWidth, [chart.run]);
    opts.series = seriesOpts;
    opts.bands = bands;
    opts.scales.y = { range: [0, 1] };
    plots.push(new uPlot(opts, table, host));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Heat maps: SM x time, IPC per SM

  const palette = (function () {
    // 256 colours interpolated between the viridis stops.
    const stops = VIRIDIS.map(function (hex) {
      return [1, 3, 5].map(function (i) { return parseInt(hex.substr(i, 2), 16); });
    });
    const out = [];
    for (let i = 0; i < 256; i++) {
      const t = i / 255 * (stops.length - 1);
      const k = Math.min(Math.floor(t), stops.length - 2);
      const f = t - k;
      const c = stops[k].map(function (a, j) { return Math.round(a + (stops[k + 1][j] - a) * f); });
      out.push("rgb(" + c.join(",") + ")");
    }
    return out;
  })();

  function colourOf(v) {
    if (v == null) return NO_DATA;
    const [lo, hi] = data.heat_scale;
    const t = hi > lo ? (v - lo) / (hi - lo) : 0;
    return palette[Math.max(0, Math.min(255, Math.round(t * 255)))];
  }

  // About `count` round numbers (1, 2 or 5 x 10^k apart) between lo and hi.
  function niceTicks(lo, hi, count) {
    const span = hi - lo;
    if (!(span > 0)) return [lo];
    const raw = span / count;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(function (m) { return m * mag; }).find(function (s) { return s >= raw; });
    const ticks = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) ticks.push(t);
    return ticks;
  }

  function heatGeometry(host, run) {
    const rows = run.heat.sms.length;
    const rowHeight = Math.max(3, Math.min(16, Math.floor(200 / rows)));
    const margin = { left: 56, right: 14, top: 4, bottom: 30 };
    const width = Math.max(200, host.clientWidth);
    return {
      rows: rows, rowHeight: rowHeight, margin: margin, width: width,
      plotWidth: width - margin.left - margin.right, height: margin.top + rows * rowHeight + margin.bottom,
    };
  }

  function drawHeatMap(entry) {
    const host = entry.host, run = entry.run, heat = run.heat;
    const g = heatGeometry(host, run);
    const canvas = entry.canvas;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(g.width * dpr);
    canvas.height = Math.round(g.height * dpr);
    canvas.style.width = g.width + "px";
    canvas.style.height = g.height + "px";
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.width, g.height);
    const [x0, x1] = xRange;
    const scale = g.plotWidth / Math.max(1, x1 - x0);
    const px = function (cycle) { return g.margin.left + (cycle - x0) * scale; };

    ctx.save();
    ctx.beginPath();
    ctx.rect(g.margin.left, g.margin.top, g.plotWidth, g.rows * g.rowHeight);
    ctx.clip();
    for (let j = 0; j < heat.begin.length; j++) {
      const left = px(heat.begin[j]), right = px(heat.end[j]);
      if (right < g.margin.left || left > g.margin.left + g.plotWidth) continue;
      // Whole pixels, at least one wide, so that adjacent cells leave no hairline seams.
      const l = Math.floor(left), w = Math.max(1, Math.ceil(right) - l);
      for (let r = 0; r < g.rows; r++) {
        ctx.fillStyle = colourOf(heat.ipc[r][j]);
        ctx.fillRect(l, g.margin.top + r * g.rowHeight, w, g.rowHeight);
      }
    }
    ctx.strokeStyle = "#ffffff";
    ctx.lineWidth = 1;
    run.launches.forEach(function (launch) {
      const x = Math.round(px(launch.begin)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(x, g.margin.top);
      ctx.lineTo(x, g.margin.top + g.rows * g.rowHeight);
      ctx.stroke();
    });
    ctx.restore();

    ctx.fillStyle = "#333333";
    ctx.font = "10px sans-serif";
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    const labelEvery = Math.ceil(12 / g.rowHeight);
    heat.sms.forEach(function (sm, r) {
      if (r % labelEvery === 0)
        ctx.fillText("SM " + sm, g.margin.left - 4, g.margin.top + (r + 0.5) * g.rowHeight);
    });
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    const axisY = g.margin.top + g.rows * g.rowHeight;
    niceTicks(x0, x1, Math.max(2, Math.floor(g.plotWidth / 110))).forEach(function (t) {
      const x = Math.round(px(t)) + 0.5;
      ctx.fillRect(x - 0.5, axisY, 1, 4);
      ctx.fillText(fmtCycles(t), x, axisY + 6);
    });
    ctx.textAlign = "right";
    ctx.fillText("GPU cycle", g.margin.left + g.plotWidth, axisY + 18);
  }

  function heatTooltip(entry, tooltip) {
    const canvas = entry.canvas, heat = entry.run.heat;
    canvas.addEventListener("mousemove", function (event) {
      const g = heatGeometry(entry.host, entry.run);
      const rect = canvas.getBoundingClientRect();
      const x = event.clientX - rect.left, y = event.clientY - rect.top;
      const r = Math.floor((y - g.margin.top) / g.rowHeight);
      const cycle = xRange[0] + (x - g.margin.left) / g.plotWidth * (xRange[1] - xRange[0]);
      // The last plotted interval that starts at or before the cycle (binary search: begins are sorted).
      let lo = 0, hi = heat.begin.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (heat.begin[mid] <= cycle) lo = mid; else hi = mid - 1;
      }
      if (r < 0 || r >= g.rows || x < g.margin.left || cycle > heat.end[lo] || cycle < heat.begin[lo]) {
        tooltip.hidden = true;
        return;
      }
      tooltip.textContent = "SM " + heat.sms[r] + ", cycles " + heat.begin[lo].toLocaleString() + "–" +
        heat.end[lo].toLocaleString() + ": IPC " + fmtValue(heat.ipc[r][lo]);
      tooltip.style.left = (event.pageX + 12) + "px";
      tooltip.style.top = (event.pageY + 12) + "px";
      tooltip.hidden = false;
    });
    canvas.addEventListener("mouseleave", function () { tooltip.hidden = true; });
  }

  function heatLegend(host) {
    const width = 260, height = 12;
    const canvas = document.createElement("canvas");
    const dpr = window.devicePixelRatio || 1;
    canvas.width = width * dpr;
    canvas.height = height * dpr;
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    const ctx = canvas.getContext("2d");
    ctx.scale(dpr, dpr);
    for (let i = 0; i < width; i++) {
      ctx.fillStyle = palette[Math.round(i / (width - 1) * 255)];
      ctx.fillRect(i, 0, 1, height);
    }
    const [lo, hi] = data.heat_scale;
    const label = function (text) {
      const span = document.createElement("span");
      span.textContent = text;
      return span;
    };
    const none = document.createElement("span");
    none.className = "no-data";
    host.append(label("IPC per SM (thread instructions per SM cycle): " + fmtValue(lo)), canvas,
      label(fmtValue(hi)), none, label("no cycles"));
  }

  function drawHeatMaps() {
    const hosts = document.querySelectorAll(".heatmap-host");
    if (hosts.length === 0) return;
    heatLegend(document.getElementById("heat-legend"));
    const tooltip = document.getElementById("heat-tooltip");
    hosts.forEach(function (host) {
      const canvas = document.createElement("canvas");
      canvas.className = "heatmap";
      host.appendChild(canvas);
      const entry = { host: host, run: data.runs[Number(host.dataset.run)], canvas: canvas };
      drawHeatMap(entry);
      heatTooltip(entry, tooltip);
      heatMaps.push(entry);
      drawn.push(Promise.resolve());
    });
  }

  // ---------------------------------------------------------------------------------------------------------

  function resizeAll() {
    plots.forEach(function (u) {
      const host = u.root.parentNode;
      if (host.clientWidth !== u.width) u.setSize({ width: host.clientWidth, height: CHART_HEIGHT });
    });
    heatMaps.forEach(drawHeatMap);
  }

  function main() {
    data.charts.forEach(function (chart) {
      const host = document.getElementById("chart-" + chart.key);
      if (chart.kind === "stack") stackChart(chart, host);
      else lineChart(chart, host);
    });
    drawHeatMaps();
    let pending = false;
    window.addEventListener("resize", function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; resizeAll(); });
    });
    Promise.all(drawn).then(function () {
      document.body.dataset.charts = String(drawn.length);
      if (document.body.dataset.reportStatus !== "error") document.body.dataset.reportStatus = "ok";
    });
  }

  main();
})();
