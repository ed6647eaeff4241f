/// The live view's page: one self-contained HTML file (no request to any other host), served from
/// the binary. The device drawn as what it is (a phone's slab with its screen, a gamepad's outline
/// with its grips and sticks, or a plain sensor board), in perspective and shaded, rotated by the
/// latest attitude (canvas 2D, painter's algorithm, each label clipped to its face), a horizon and
/// a heading dial, strip charts of roll, pitch and yaw over the last 10 s, per stream; from 360 px
/// wide up with no sideways scrolling. It reconnects by itself, and says when the source ended (a
/// replay that is over) instead of "reconnecting". `window.mouse3dView` is the test hook: `{connected, frames, seq, attitude:
/// {roll, pitch, yaw}}` (frames: updates received since load; seq: the first stream's latest
/// sequence number; degrees). The page is served only with the view's token, and sends it on its
/// stream and, where the view offers recenter (a loopback view of a process that fuses), with the
/// button's POST to `/recenter` in the `X-Mouse3D-Token` header.
enum ViewPage {
    static func html(token: String, offersRecenter: Bool, device: String = "sensor") -> String {
        template.split(separator: "@TOKEN@", omittingEmptySubsequences: false).joined(separator: token)
            .split(separator: "@RECENTER@", omittingEmptySubsequences: false).joined(
                separator: offersRecenter ? "1" : ""
            )
            .split(separator: "@DEVICE@", omittingEmptySubsequences: false).joined(
                separator: ["phone", "gamepad"].contains(device) ? device : "sensor")
    }

    static let template = #"""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>mouse3d view</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="icon" href="data:,">
        <meta name="mouse3d-token" content="@TOKEN@">
        <meta name="mouse3d-recenter" content="@RECENTER@">
        <meta name="mouse3d-device" content="@DEVICE@">
        <style>
        *{box-sizing:border-box}
        html,body{margin:0;overflow-x:hidden}
        body{font:14px system-ui,sans-serif;background:#111418;color:#dde3ea}
        header{padding:8px 14px;background:#1b2027;display:flex;flex-wrap:wrap;gap:6px 16px;align-items:baseline}
        header b{font-size:16px} #status{color:#f0a040} #status.live{color:#60d080} #status.ended{color:#9fb3c8}
        #streams{display:flex;flex-wrap:wrap;gap:12px;padding:12px}
        .panel{background:#1b2027;border-radius:8px;padding:10px;width:620px;max-width:100%}
        .panel h2{font-size:14px;margin:0 0 6px 0;font-weight:600;overflow-wrap:anywhere}
        .row{display:flex;flex-wrap:wrap;gap:10px} canvas{display:block;background:#0c0f13;border-radius:6px;max-width:100%;height:auto}
        .row{align-items:flex-start} .row canvas{flex:1 1 250px;min-width:0;width:250px}
        .nums{font-variant-numeric:tabular-nums;margin-top:6px;color:#aab4c0;overflow-wrap:anywhere}
        button{background:#2a3340;color:#dde3ea;border:1px solid #445;border-radius:5px;padding:3px 10px;cursor:pointer}
        .chart,.hist{margin-top:6px;width:600px}
        </style></head>
        <body>
        <header><b>mouse3d</b><span id="status">connecting…</span><button id="recenter" hidden>recenter</button><span id="refused"></span></header>
        <div id="streams"></div>
        <script>
        "use strict";
        const view = window.mouse3dView = {connected: false, frames: 0, seq: null, attitude: {roll: 0, pitch: 0, yaw: 0}, ended: false};
        const panels = new Map();
        const rad = Math.PI / 180;

        function makePanel(label) {
          const div = document.createElement("div");
          div.className = "panel";
          div.innerHTML = `<h2></h2><div class="row"><canvas width="300" height="260" class="model"></canvas>
            <canvas width="300" height="260" class="dials"></canvas></div>
            <canvas width="600" height="150" class="chart"></canvas><div class="nums"></div>
            <canvas width="600" height="110" class="hist"></canvas>`;
          div.querySelector("h2").textContent = label;
          document.getElementById("streams").appendChild(div);
          const p = {div, model: div.querySelector(".model"), dials: div.querySelector(".dials"),
                     chart: div.querySelector(".chart"), hist: div.querySelector(".hist"), nums: div.querySelector(".nums"), history: [], last: null};
          panels.set(label, p);
          return p;
        }

        // Sensor frame to the Z-up world: R = Rz(yaw) Ry(pitch) Rx(roll).
        function rotation(r, p, y) {
          const [cr, sr, cp, sp, cy, sy] = [Math.cos(r), Math.sin(r), Math.cos(p), Math.sin(p), Math.cos(y), Math.sin(y)];
          return [[cy*cp, cy*sp*sr - sy*cr, cy*sp*cr + sy*sr],
                  [sy*cp, sy*sp*sr + cy*cr, sy*sp*cr - cy*sr],
                  [-sp, cp*sr, cp*cr]];
        }
        const apply = (m, v) => [0, 1, 2].map(i => m[i][0]*v[0] + m[i][1]*v[1] + m[i][2]*v[2]);

        // The device, as what it is, in the model frame (x right, y forward, z up), half-sizes in
        // model units: an outline in the x-y plane extruded to its thickness, and its marks.
        // (?device=phone|gamepad|sensor draws another: the drawing alone changes.)
        const device = new URLSearchParams(location.search).get("device") || document.querySelector('meta[name="mouse3d-device"]').content;
        function rounded(hx, hy, r, n) {
          const pts = [];
          for (const [cx, cy, a0] of [[hx - r, hy - r, 0], [-hx + r, hy - r, 90], [-hx + r, -hy + r, 180], [hx - r, -hy + r, 270]])
            for (let k = 0; k <= n; k++) { const a = (a0 + 90 * k / n) * rad; pts.push([cx + r * Math.cos(a), cy + r * Math.sin(a)]); }
          return pts;
        }
        function gamepadOutline() {
          // A pad seen from above, its front (triggers) to +y, its grips toward the player (-y).
          const right = [[0.2, 0.36], [0.62, 0.4], [0.8, 0.3], [0.9, 0.05], [0.92, -0.25], [0.82, -0.5], [0.62, -0.56],
                         [0.46, -0.42], [0.34, -0.2], [0.2, -0.16]];
          return right.concat(right.slice().reverse().map(([x, y]) => [-x, y]));
        }
        const models = {
          phone: {outline: rounded(0.38, 0.78, 0.1, 5), thickness: 0.045, colour: [70, 80, 96],
                  marks: {inset: rounded(0.34, 0.7, 0.06, 4), colour: [28, 52, 92], label: "screen", arrow: "top"}},
          gamepad: {outline: gamepadOutline(), thickness: 0.14, colour: [92, 96, 110],
                    marks: {circles: [[-0.34, 0.08, 0.09], [0.2, -0.1, 0.09], [0.52, 0.12, 0.05], [-0.55, 0.12, 0.05]],
                            colour: [40, 44, 54], label: "", arrow: "front"}},
          sensor: {outline: [[0.5, 0.8], [-0.5, 0.8], [-0.5, -0.8], [0.5, -0.8]], thickness: 0.18, colour: [60, 130, 90],
                   marks: {label: "top", arrow: "front"}}
        };
        const model = Object.hasOwn(models, device) ? models[device] : models.sensor;
        // Each face: its corners and outward normal. The outline runs counter-clockwise seen from above.
        const ccw = model.outline.reduce((s, p, i, a) => s + (a[(i + 1) % a.length][0] - p[0]) * (a[(i + 1) % a.length][1] + p[1]), 0) < 0;
        const outline = ccw ? model.outline : model.outline.slice().reverse();
        const t = model.thickness;
        const faces = [{pts: outline.map(([x, y]) => [x, y, t]), n: [0, 0, 1], top: true},
                       {pts: outline.slice().reverse().map(([x, y]) => [x, y, -t]), n: [0, 0, -1]}];
        outline.forEach(([x0, y0], i) => {
          const [x1, y1] = outline[(i + 1) % outline.length], len = Math.hypot(x1 - x0, y1 - y0);
          faces.push({pts: [[x0, y0, -t], [x1, y1, -t], [x1, y1, t], [x0, y0, t]], n: [(y1 - y0) / len, -(x1 - x0) / len, 0]});
        });
        // The camera looks north (+y) from behind the device, 30° above it, in perspective.
        const camera = 30 * Math.PI / 180;
        function project(v, w, h) {
          // Depth along the view direction (0, cos c, -sin c); height along the camera's up (0, sin c, cos c).
          const y = v[1] * Math.cos(camera) - v[2] * Math.sin(camera), z = v[1] * Math.sin(camera) + v[2] * Math.cos(camera);
          const d = 3.2 + y, s = Math.min(w, h * 1.15) * 1.15 / d;
          return [w / 2 + v[0] * s, h / 2 + 10 - z * s, d];
        }
        function path(g, pts) { g.beginPath(); pts.forEach((p, i) => i ? g.lineTo(p[0], p[1]) : g.moveTo(p[0], p[1])); g.closePath(); }
        function drawModel(c, a) {
          const g = c.getContext("2d"), w = c.width, h = c.height, m = rotation(a.roll*rad, a.pitch*rad, a.yaw*rad);
          g.clearRect(0, 0, w, h);
          const light = [0.3, -0.5, 0.8];
          const at = v => project(apply(m, v), w, h);
          const drawn = faces.map(f => {
            const pts = f.pts.map(at), n = apply(m, f.n);
            const toward = n[1] * Math.cos(camera) - n[2] * Math.sin(camera);
            return {f, pts, n, depth: pts.reduce((s, p) => s + p[2], 0) / pts.length, facing: toward < 0.02};
          }).filter(d => d.facing).sort((x, y) => y.depth - x.depth);
          for (const d of drawn) {
            const shade = 0.4 + 0.6 * Math.max(0, d.n[0]*light[0] + d.n[1]*light[1] + d.n[2]*light[2]);
            g.fillStyle = `rgb(${model.colour.map(x => Math.round(x * shade)).join(",")})`;
            path(g, d.pts); g.fill(); g.strokeStyle = "rgba(12,15,19,0.6)"; g.stroke();
            if (!d.f.top) continue;
            // The top face's marks, clipped to it: a screen, sticks, and an arrow to the front.
            g.save(); path(g, d.pts); g.clip();
            const mk = model.marks;
            g.fillStyle = `rgb(${mk.colour ? mk.colour.map(x => Math.round(x * shade)).join(",") : "0,0,0"})`;
            if (mk.inset) { path(g, mk.inset.map(([x, y]) => at([x, y, t]))); g.fill(); }
            for (const [x, y, r] of mk.circles || []) {
              path(g, Array.from({length: 16}, (_, k) => at([x + r * Math.cos(k * Math.PI / 8), y + r * Math.sin(k * Math.PI / 8), t]))); g.fill();
            }
            const from = at([0, -0.05, t]), to = at([0, model === models.gamepad ? 0.3 : 0.5, t]);
            const size = Math.hypot(to[0] - from[0], to[1] - from[1]);
            if (size > 12) {
              g.strokeStyle = "rgba(240,200,80,0.9)"; g.lineWidth = 2.5;
              g.beginPath(); g.moveTo(from[0], from[1]); g.lineTo(to[0], to[1]); g.stroke();
              const ang = Math.atan2(to[1] - from[1], to[0] - from[0]);
              g.beginPath(); g.moveTo(to[0], to[1]);
              g.lineTo(to[0] - 9 * Math.cos(ang - 0.5), to[1] - 9 * Math.sin(ang - 0.5));
              g.lineTo(to[0] - 9 * Math.cos(ang + 0.5), to[1] - 9 * Math.sin(ang + 0.5)); g.closePath();
              g.fillStyle = "rgba(240,200,80,0.9)"; g.fill(); g.lineWidth = 1;
              g.fillStyle = "rgba(255,255,255,0.9)"; g.font = "12px system-ui"; g.textAlign = "left";
              g.fillText(mk.arrow, (from[0] + to[0]) / 2 + 8, (from[1] + to[1]) / 2 + 4);
              g.textAlign = "center";
              if (mk.label) { const c0 = at([0, -0.35, t]); g.fillText(mk.label, c0[0], c0[1] + 4); }
            }
            g.restore();
          }
        }
        function drawDials(c, a) {
          const g = c.getContext("2d"), w = c.width, h = c.height;
          g.clearRect(0, 0, w, h);
          // Horizon: the sky and ground split tilted by roll, shifted by pitch.
          const r = 70, cx = 80, cy = 130;
          g.save(); g.beginPath(); g.arc(cx, cy, r, 0, 2*Math.PI); g.clip();
          g.translate(cx, cy); g.rotate(-a.roll * rad); const off = -a.pitch * 2;  // nose up (pitch < 0): more sky
          g.fillStyle = "#3a6ea5"; g.fillRect(-2*r, -2*r + off, 4*r, 2*r);
          g.fillStyle = "#7a5a30"; g.fillRect(-2*r, off, 4*r, 2*r);
          g.strokeStyle = "#fff"; g.beginPath(); g.moveTo(-r, off); g.lineTo(r, off); g.stroke(); g.restore();
          g.strokeStyle = "#f0c040"; g.lineWidth = 3; g.beginPath(); g.moveTo(cx - 30, cy); g.lineTo(cx + 30, cy); g.stroke(); g.lineWidth = 1;
          // Heading dial.
          const hx = 225, hy = 130, hr = 60;
          g.strokeStyle = "#556"; g.beginPath(); g.arc(hx, hy, hr, 0, 2*Math.PI); g.stroke();
          g.fillStyle = "#aab"; g.font = "11px system-ui"; g.textAlign = "center";
          [["N", 0], ["E", 90], ["S", 180], ["W", 270]].forEach(([t, d]) => g.fillText(t, hx + Math.sin(d*rad)*(hr-10), hy - Math.cos(d*rad)*(hr-10) + 4));
          const hd = -a.yaw * rad;  // yaw grows to the left (counter-clockwise seen from above)
          g.strokeStyle = "#f0c040"; g.lineWidth = 3; g.beginPath(); g.moveTo(hx, hy); g.lineTo(hx + Math.sin(hd)*(hr-18), hy - Math.cos(hd)*(hr-18)); g.stroke(); g.lineWidth = 1;
          g.fillStyle = "#dde"; g.font = "12px system-ui";
          g.fillText("horizon", cx, 30); g.fillText("heading", hx, 30);
        }
        function drawChart(c, history, now) {
          const g = c.getContext("2d"), w = c.width, h = c.height;
          g.clearRect(0, 0, w, h);
          g.strokeStyle = "#333a44"; g.beginPath(); g.moveTo(0, h/2); g.lineTo(w, h/2); g.stroke();
          const colours = {roll: "#e06050", pitch: "#60c080", yaw: "#5090e0"};
          // The scale follows the largest angle shown: 10°, 30°, 90° or 180°.
          const largest = history.reduce((m, s) => Math.max(m, Math.abs(s.roll), Math.abs(s.pitch), Math.abs(s.yaw)), 0);
          const range = [10, 30, 90, 180].find(r => largest <= r) || 180;
          for (const key of ["roll", "pitch", "yaw"]) {
            g.strokeStyle = colours[key]; g.beginPath();
            history.forEach((s, i) => {
              const x = w - (now - s.t) / 10 * w, y = h/2 - s[key] / range * (h/2 - 4);
              i ? g.lineTo(x, y) : g.moveTo(x, y);
            });
            g.stroke();
          }
          g.font = "11px system-ui"; g.textAlign = "left";
          Object.entries(colours).forEach(([k, col], i) => { g.fillStyle = col; g.fillText(k, 6 + 44*i, 12); });
          g.fillStyle = "#889"; g.fillText(`last 10 s, ±${range}°`, w - 96, 12);
        }

        // Arrival intervals (and send→arrival latency where the receiver measures it) over the last 10 s.
        let edges = [];
        function drawHistogram(c, s) {
          const g = c.getContext("2d"), w = c.width, h = c.height;
          g.clearRect(0, 0, w, h);
          const sets = [["interval", "#7aa0d0", s.interval], ["latency", "#e0a050", s.latency]].filter(x => x[2]);
          const n = edges.length + 1, bw = (w - 20) / n, top = 16, base = h - 16;
          const largest = Math.max(1, ...sets.flatMap(x => x[2]));
          sets.forEach(([name, colour, counts], k) => {
            g.fillStyle = colour;
            counts.forEach((v, i) => {
              const bh = v / largest * (base - top), x = 10 + i * bw + k * bw / sets.length;
              g.fillRect(x + 1, base - bh, bw / sets.length - 2, bh);
            });
            g.fillText(name, 10 + 70 * k, 11);
          });
          g.fillStyle = "#889"; g.font = "10px system-ui"; g.textAlign = "center";
          const label = us => us >= 1000 ? `${us / 1000}ms` : `${us}µs`;
          for (let i = 0; i < n; i++) g.fillText(i < edges.length ? `<${label(edges[i])}` : `≥${label(edges[n - 2])}`, 10 + (i + 0.5) * bw, h - 3);
          g.textAlign = "left"; g.font = "11px system-ui";
          g.fillStyle = "#889"; g.fillText("last 10 s", w - 60, 11);
        }

        function onUpdate(message) {
          if (message.edges_us) edges = message.edges_us;
          const now = performance.now() / 1000;
          for (const s of message.streams) {
            const p = panels.get(s.label) || makePanel(s.label);
            if (p.last && p.last.frames === s.frames) continue;
            const rate = p.last ? (s.frames - p.last.frames) / Math.max(1e-3, now - p.last.at) : 0;
            p.last = {frames: s.frames, at: now};
            p.rate = p.rate === undefined ? rate : 0.8 * p.rate + 0.2 * rate;
            p.history.push({t: now, roll: s.roll, pitch: s.pitch, yaw: s.yaw});
            while (p.history.length && now - p.history[0].t > 10) p.history.shift();
            p.current = s;
          }
          const first = message.streams[0];
          if (first) { view.attitude = {roll: first.roll, pitch: first.pitch, yaw: first.yaw}; view.seq = first.seq; }
          view.frames += 1;
          if (message.ended) view.ended = true;
          const r = message.refused || {};
          const total = Object.values(r).reduce((a, b) => a + b, 0);
          document.getElementById("refused").textContent = total ? `refused requests: ${Object.entries(r).filter(e => e[1]).map(e => e.join(" ")).join(", ")}` : "";
        }
        function draw() {
          const now = performance.now() / 1000;
          for (const p of panels.values()) {
            if (!p.current) continue;
            drawModel(p.model, p.current); drawDials(p.dials, p.current); drawChart(p.chart, p.history, now);
            const s = p.current;
            drawHistogram(p.hist, s);
            p.nums.textContent = `roll ${s.roll.toFixed(2)}°  pitch ${s.pitch.toFixed(2)}°  yaw ${s.yaw.toFixed(2)}°  ·  ${(p.rate || 0).toFixed(0)} frames/s  ·  `
              + `lost ${s.lost}  ·  reordered ${s.reordered}  ·  seq ${s.seq}`;
          }
          requestAnimationFrame(draw);
        }
        requestAnimationFrame(draw);

        function connect() {
          const status = document.getElementById("status");
          const socket = new WebSocket(`ws://${location.host}/stream?token=${token}`);
          socket.onopen = () => { view.connected = true; status.textContent = "live"; status.className = "live"; };
          socket.onmessage = e => {
            onUpdate(JSON.parse(e.data));
            if (view.ended) { status.textContent = "the source has ended (the replay is over)"; status.className = "ended"; }
          };
          socket.onclose = () => {
            view.connected = false;
            // A source that ended: said as such, and looked for again only now and then (mouse3d
            // may be started again on the same port).
            status.textContent = view.ended ? "the source has ended and mouse3d has stopped" : "reconnecting…";
            status.className = view.ended ? "ended" : "";
            setTimeout(connect, view.ended ? 5000 : 500);
          };
          socket.onerror = () => socket.close();
        }
        // The view's token: every request carries it (the page was served with it; other sites' pages
        // cannot read it). It is kept across restarts, so a page reconnects to a restarted process.
        const token = document.querySelector('meta[name="mouse3d-token"]').content;
        connect();

        // Recenter: offered only on a loopback view of a process that fuses.
        if (document.querySelector('meta[name="mouse3d-recenter"]').content) {
          const button = document.getElementById("recenter");
          button.hidden = false;
          button.onclick = () => fetch("/recenter", {method: "POST", headers: {"X-Mouse3D-Token": token}})
            .then(r => { view.recentred = (view.recentred || 0) + (r.ok ? 1 : 0); });
        }
        </script>
        </body></html>
        """#
}
