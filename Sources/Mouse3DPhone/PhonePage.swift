/// The phone's page: one self-contained HTML file served from the binary (nothing from any other
/// host; it works offline). It connects at once (so a stale or mistyped code is said in words at
/// once, and the terminal hears of it), with the URL's token or the key mouse3d handed it for that
/// token (see ``PhoneCredentials``); a refusal is said in words and retried slowly. Start asks for
/// the motion sensors (iOS needs a tap and its permission), keeps the screen on (Screen Wake Lock),
/// and streams every `devicemotion` event, batched every 25 ms with its own time; readings taken
/// while the socket is down are dropped (stale motion is never replayed). No readings within 2 s
/// of Start is said, with what to do. The screen's orientation angle is sent at connection and on
/// every change (mouse3d turns the readings by it: the far side points in landscape). Four big
/// touch areas: left click, right click, recenter, hold to move (the clutch); all are released when
/// the page is hidden. `window.mouse3dPhone` is the test hook:
/// `{started, connected, readings, sent, rate, buttons, refusal, noMotion, angle}`.
enum PhonePage {
    static let html = #"""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>mouse3d phone</title>
        <meta name="viewport" content="width=device-width, initial-scale=1, user-scalable=no">
        <link rel="icon" href="data:,">
        <style>
        html,body{margin:0;height:100%;background:#111418;color:#dde3ea;font:16px system-ui,sans-serif;-webkit-user-select:none;user-select:none;touch-action:manipulation}
        main{display:flex;flex-direction:column;height:100%;box-sizing:border-box;padding:10px;gap:8px;max-width:640px;margin:0 auto}
        #status{font-size:16px;min-height:1.4em;line-height:1.35} #status.live{color:#60d080} #status.bad{color:#f5a070}
        #hint{font-size:13px;color:#98a4b3;line-height:1.35;margin:0}
        .grid{flex:1;display:grid;grid-template-columns:1fr 1fr;grid-template-rows:1fr 0.6fr 1.4fr;gap:10px;min-height:0}
        button{font:inherit;font-size:20px;color:#dde3ea;background:#222a35;border:1px solid #3a4656;border-radius:14px;touch-action:none;min-height:56px}
        button.down{background:#3d5a80;border-color:#7aa2d6}
        #start{font-size:22px;background:#2d6a4f;min-height:60px}
        #start.started{background:#1c2a22;color:#8fb89f;font-size:16px;min-height:40px}
        #hold,#recenter{grid-column:1 / span 2}
        footer{font-size:12px;color:#7d8896;display:flex;justify-content:space-between}
        @media (orientation: landscape){ .grid{grid-template-columns:1fr 1fr 1.2fr;grid-template-rows:1fr 0.6fr} #hold{grid-column:3;grid-row:1 / span 2} }
        </style></head>
        <body><main>
        <button id="start">Start</button>
        <div id="status" role="status">Connecting to mouse3d…</div>
        <p id="hint">Hold the phone flat, screen up. It points with its top edge in portrait and with its far side in landscape. Press and hold <b>hold to move</b>, then turn it left and right, or tilt the far edge up and down.</p>
        <div class="grid">
        <button id="left" data-bit="1">left click</button>
        <button id="right" data-bit="2">right click</button>
        <button id="recenter" data-bit="4">recenter</button>
        <button id="hold" data-bit="8">hold to move</button>
        </div>
        <footer><span id="wake">screen: may sleep</span><span id="angle"></span></footer>
        </main>
        <script>
        "use strict";
        const hook = window.mouse3dPhone = {started: false, connected: false, readings: 0, sent: 0, rate: 0, buttons: 0, refusal: null, noMotion: false, angle: 0};
        const token = decodeURIComponent(location.hash.slice(1));
        const status = document.getElementById("status");
        // WebKit on iOS and iPadOS gives accelerationIncludingGravity with the opposite sign.
        const webkitIOS = /iPhone|iPad|iPod/.test(navigator.userAgent) || (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);
        let socket = null, batch = [], buttons = 0, wakeLock = null, rateCount = 0, rateStart = performance.now();
        let startedAt = 0, lastReadingAt = 0;
        // The URL's token admits one phone once; mouse3d then hands this page a key of its own, kept
        // here (per server), which it shows from then on: the key of this run's token, or a
        // remembered phone's key whatever the URL's token.
        const keyName = "mouse3d-key:" + location.host;
        // Kept in memory too: a browser that refuses storage still reconnects while the page is open.
        let heldKey = null;
        function storedKey() { try { return JSON.parse(localStorage.getItem(keyName) || "null") || heldKey; } catch (e) { return heldKey; } }
        function usableKey() { const k = storedKey(); return k && (k.remember || k.token === token) ? k : null; }
        let sentKey = false, refusal = null, retry = null;
        function later(ms) { retry = setTimeout(() => { retry = null; connect(); }, ms); }
        // Why mouse3d closed the socket (PhoneSource.CloseCode), in words, and when to try again (ms).
        const refusals = {
          4001: ["This code is not the one mouse3d shows now (it is from an earlier run of mouse3d, or mistyped): scan the new QR code.", 10000],
          4002: ["This code has already been used by another phone. Use that phone, or restart mouse3d and scan its new QR code.", 10000],
          4003: ["Another phone is connected to mouse3d now: close its page first.", 2000],
          4008: ["Too many connections: waiting a little before trying again.", 5000]
        };
        const noMotionText = "No motion readings from this browser. A desktop browser has no motion sensors: open the page on a phone. On an iPhone, allow Motion & Orientation Access (Settings → Safari), then reload.";

        function say(text, cls) { if (status.textContent !== text) status.textContent = text; status.className = cls || ""; }

        function screenAngle() {
          const a = screen.orientation ? screen.orientation.angle : (window.orientation || 0);
          return ((a % 360) + 360) % 360;
        }
        function sendAngle() {
          hook.angle = screenAngle();
          document.getElementById("angle").textContent = hook.angle ? "landscape: points with the far side" : "";
          if (socket && socket.readyState === 1) socket.send(new Uint8Array([4, hook.angle & 255, hook.angle >> 8]));
        }
        if (screen.orientation) screen.orientation.addEventListener("change", sendAngle);
        window.addEventListener("orientationchange", sendAngle);

        function connect() {
          const key = usableKey();
          if (!token && !key) { say("This address has no code: scan the QR code mouse3d shows.", "bad"); return; }
          socket = new WebSocket(`wss://${location.host}/stream`);
          socket.binaryType = "arraybuffer";
          socket.onopen = () => {
            sentKey = !!key;
            socket.send(key ? key.secret : token);
            socket.send(new Uint8Array([3, webkitIOS ? 1 : 0]));
            sendAngle();
            socket.send(new Uint8Array([2, buttons]));
            hook.connected = true;
            refusal = null; hook.refusal = null;
            if (!hook.started) say("Connected: tap Start, then allow motion access.", "");
          };
          socket.onmessage = e => {
            if (typeof e.data !== "string") return;
            try {
              const m = JSON.parse(e.data);
              if (!m.secret) return;
              heldKey = {secret: m.secret, token: token, remember: !!m.remember};
              try { localStorage.setItem(keyName, JSON.stringify(heldKey)); } catch (err) {}
              // Said once it is kept: only then is the URL's code spent.
              socket.send("kept");
            } catch (err) {}
          };
          socket.onclose = e => {
            hook.connected = false;
            socket = null;
            batch = [];
            if (e.code === 4001 && sentKey) {
              // A key this run does not know (mouse3d forgot the phone, or restarted without
              // remembering it): dropped, and the URL's token tried at once.
              try { localStorage.removeItem(keyName); } catch (err) {}
              heldKey = null;
              later(0);
              return;
            }
            const known = refusals[e.code];
            refusal = known ? e.code : null;
            hook.refusal = refusal;
            say(known ? known[0] : "Reconnecting to mouse3d…", "bad");
            later(known ? known[1] : 500);
          };
          socket.onerror = () => socket && socket.close();
        }

        function onMotion(e) {
          const r = e.rotationRate, a = e.accelerationIncludingGravity;
          if (!r || !a || r.alpha === null || a.x === null) return;  // no sensor behind the event
          lastReadingAt = performance.now();
          hook.readings++; rateCount++;
          // Taken while the socket is down, a reading would be stale motion by the time it went.
          if (socket && socket.readyState === 1) batch.push([e.timeStamp, r.alpha, r.beta, r.gamma, a.x, a.y, a.z]);
        }

        // Every 25 ms: the readings since the last batch, as one binary message (see PhoneMessage).
        setInterval(() => {
          const now = performance.now();
          if (now - rateStart >= 1000) { hook.rate = rateCount * 1000 / (now - rateStart); rateCount = 0; rateStart = now; }
          hook.noMotion = hook.started && now - startedAt > 2000 && now - lastReadingAt > 2000;
          if (refusal) {
            // the refusal's words stay until the next try
          } else if (hook.noMotion) {
            say(noMotionText, "bad");
          } else if (hook.started && hook.connected && lastReadingAt) {
            say(`live · ${hook.rate.toFixed(0)} readings/s`, "live");
          } else if (hook.started && hook.connected) {
            say("Waiting for the first motion readings…", "");
          }
          if (!batch.length || !socket || socket.readyState !== 1) return;
          while (batch.length) {
            const part = batch.splice(0, 120);
            const buffer = new ArrayBuffer(3 + part.length * 32), view = new DataView(buffer);
            view.setUint8(0, 1); view.setUint16(1, part.length, true);
            part.forEach((p, i) => {
              const o = 3 + i * 32;
              view.setFloat64(o, p[0], true);
              for (let k = 1; k < 7; k++) view.setFloat32(o + 4 + 4 * k, p[k], true);
            });
            socket.send(buffer);
            hook.sent += part.length;
          }
        }, 25);

        async function keepScreenOn() {
          const wake = document.getElementById("wake");
          try {
            if ("wakeLock" in navigator && document.visibilityState === "visible") {
              wakeLock = await navigator.wakeLock.request("screen");
              wake.textContent = "screen: stays on";
            }
          } catch (e) { wake.textContent = "screen: may sleep"; }
        }

        // Nothing stays held while the page is hidden (another app, the screen off): the fingers
        // that held the areas are gone, and mouse3d hears the release at once.
        function releaseAll() {
          for (const b of document.querySelectorAll("button[data-bit]")) b.classList.remove("down");
          if (buttons === 0) return;
          buttons = 0; hook.buttons = 0;
          if (socket && socket.readyState === 1) socket.send(new Uint8Array([2, 0]));
        }
        document.addEventListener("visibilitychange", () => {
          if (document.visibilityState === "hidden") releaseAll();
          else if (hook.started) keepScreenOn();
        });
        window.addEventListener("pagehide", releaseAll);

        document.getElementById("start").addEventListener("click", async () => {
          if (hook.started) return;
          try {
            if (typeof DeviceMotionEvent !== "undefined" && typeof DeviceMotionEvent.requestPermission === "function") {
              const answer = await DeviceMotionEvent.requestPermission();
              if (answer !== "granted") { say("Motion access was refused: allow Motion & Orientation Access (Settings → Safari), then reload.", "bad"); return; }
            }
          } catch (e) { say("Motion access: " + e.message, "bad"); return; }
          if (!window.isSecureContext) { say("Not a secure page: open the https:// address mouse3d shows.", "bad"); return; }
          window.addEventListener("devicemotion", onMotion);
          hook.started = true;
          startedAt = performance.now();
          const start = document.getElementById("start");
          start.textContent = "Started"; start.classList.add("started");
          keepScreenOn();
          if (!socket && !retry) connect();
        });

        // The touch areas: pressed while a finger (or the mouse) is down on them.
        for (const b of document.querySelectorAll("button[data-bit]")) {
          const bit = Number(b.dataset.bit);
          const set = down => {
            const next = down ? (buttons | bit) : (buttons & ~bit);
            if (next === buttons) return;
            buttons = next; hook.buttons = buttons; b.classList.toggle("down", down);
            if (socket && socket.readyState === 1) socket.send(new Uint8Array([2, buttons]));
          };
          b.addEventListener("pointerdown", e => { b.setPointerCapture(e.pointerId); set(true); });
          for (const up of ["pointerup", "pointercancel", "lostpointercapture"]) b.addEventListener(up, () => set(false));
          b.addEventListener("contextmenu", e => e.preventDefault());
        }
        sendAngle();
        connect();
        </script>
        </body></html>
        """#
}
