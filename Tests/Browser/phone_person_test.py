#!/usr/bin/python3
"""The phone as a person meets it, in Debian's headless Chromium with a phone's screen (375x812,
touch, mobile) and DevTools virtual sensors: each check is something a person does in the first
minute, and each failed on the main before this test.

usage: phone_person_test.py MOUSE3D [SCREENSHOT_DIR]

  - an earlier run's code (mouse3d restarted, the page still open) and a mistyped one: the page says
    so in words within 2 s, not green, and the terminal says it within 1 s;
  - a browser with no motion sensors: after Start the page says so within 3 s, not green, and the
    terminal says "no motion readings yet";
  - landscape (screen angle 90 and 270): raising the far edge 30 degrees pitches as raising the top
    edge does in portrait, 30 +- 1 degrees, same sign;
  - a 30 s outage with --phone-remember (mouse3d stopped and started again, the page left open): the
    page reconnects by itself, no stale readings reach the fusion and reading -> fusion stays under
    100 ms at p99;
  - http:// typed instead of https://: the browser lands on the page, token and all;
  - a normal session through the certificate warning (Advanced, then Proceed), Start, 10 s, close:
    0 refusals;
  - screenshots (portrait, landscape, no sensors, old code) written to SCREENSHOT_DIR.
Prints one line per check; exits 1 on the first failure. Skips (exit 0, with the reason) only when
the browser or Selenium is not installed.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

from browser_support import Verdicts, chromium, free_port, jsonl_frames, require_browser

verdicts = Verdicts("phone as a person")
fail = verdicts.fail
webdriver = require_browser(verdicts)
from selenium.webdriver.common.by import By  # noqa: E402

binary = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="mouse3d-phone-shots-")
os.makedirs(shots, exist_ok=True)
home = tempfile.mkdtemp(prefix="mouse3d-person-")
env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"}
G = 9.80665


class Run:
    """`mouse3d run --source phone:127.0.0.1:PORT --print --format jsonl [extra]`."""

    def __init__(self, port, extra=()):
        self.port = port
        tag = f"{port}-{time.time():.0f}"
        self.out_path, self.err_path = os.path.join(home, f"out-{tag}.jsonl"), os.path.join(home, f"err-{tag}.txt")
        self.proc = subprocess.Popen([binary, "run", "--source", f"phone:127.0.0.1:{port}", "--print", "--format", "jsonl", *extra],
                                     stdout=open(self.out_path, "w"), stderr=open(self.err_path, "w"), env=env)
        end = time.time() + 20
        while time.time() < end and "running phone" not in self.errors():
            if self.proc.poll() is not None:
                fail(f"mouse3d exited: {self.errors()[-600:]}")
            time.sleep(0.05)
        self.url = next(w for w in self.errors().split() if w.startswith("https://") and "#" in w)

    def errors(self):
        with open(self.err_path) as fh:
            return fh.read()

    def frames(self):
        return jsonl_frames(self.out_path)

    def wait_said(self, text, seconds):
        end = time.time() + seconds
        while time.time() < end:
            if text in self.errors():
                return True
            time.sleep(0.02)
        return False

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        return self.errors()


def phone_browser(landscape_angle=None, sensors=True, accept_insecure=True):
    """Headless Chromium as a phone: 375x812 (812x375 in landscape), touch, its sensors overridden."""
    _, new = chromium(webdriver, ("--window-size=812,812",) + (("--ignore-certificate-errors",) if accept_insecure else ()),
                      {"browser": "ALL"})
    d = new()
    d.set_page_load_timeout(30)
    width, height = (812, 375) if landscape_angle else (375, 812)
    orientation = {"type": "portraitPrimary", "angle": 0}
    if landscape_angle == 90:
        orientation = {"type": "landscapePrimary", "angle": 90}
    elif landscape_angle == 270:
        orientation = {"type": "landscapeSecondary", "angle": 270}
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 2,
                                                             "mobile": True, "screenOrientation": orientation})
    d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    if sensors:
        for t in ("gyroscope", "accelerometer", "linear-acceleration", "gravity"):
            d.execute_cdp_cmd("Emulation.setSensorOverrideEnabled", {"enabled": True, "type": t})
        reading(d, (0, 0, 0), (0, 0, G))
    else:
        # A desktop's browser: no motion sensors at all.
        for t in ("gyroscope", "accelerometer", "linear-acceleration", "gravity"):
            d.execute_cdp_cmd("Emulation.setSensorOverrideEnabled", {"enabled": True, "type": t,
                                                                      "metadata": {"available": False}})
    return d


def reading(d, gyro, force):
    """One set of readings: the gyroscope (rad/s) and the specific force (m/s^2, +g up), device axes."""
    d.execute_cdp_cmd("Emulation.setSensorOverrideReadings", {"type": "gyroscope", "reading": {"xyz": dict(zip("xyz", map(float, gyro)))}})
    for kind, v in (("accelerometer", force), ("gravity", force), ("linear-acceleration", (0, 0, 0))):
        d.execute_cdp_cmd("Emulation.setSensorOverrideReadings", {"type": kind, "reading": {"xyz": dict(zip("xyz", map(float, v)))}})


def hook(d):
    return json.loads(d.execute_script("return JSON.stringify(window.mouse3dPhone)"))


def status(d):
    return d.execute_script("const s = document.getElementById('status'); return [s.textContent, s.className]")


def tap(d, element_id):
    """A finger on the element: touch events through the DevTools protocol (Input.dispatchTouchEvent)."""
    r = d.execute_script(f"const r = document.getElementById('{element_id}').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]")
    point = [{"x": r[0], "y": r[1]}]
    d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
    d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def wait_hook(d, key, seconds, keep_reading=True):
    end = time.time() + seconds
    while time.time() < end:
        if keep_reading:
            reading(d, (0, 0, 0), (0, 0, G))
        if hook(d).get(key):
            return True
        time.sleep(0.05)
    return False


def start_streaming(d, url):
    d.get(url)
    if not wait_hook(d, "connected", 10):
        fail(f"the page did not connect: {hook(d)} {status(d)}")
    tap(d, "start")
    if not wait_hook(d, "started", 5):
        fail(f"Start did nothing: {hook(d)}")
    end = time.time() + 5
    while time.time() < end and not status(d)[0].startswith("live"):
        reading(d, (0, 0, 0), (0, 0, G))
        time.sleep(0.02)


def shot(d, name):
    path = os.path.join(shots, name)
    d.save_screenshot(path)
    return path


def tilt(d, axis_rate, force_of, seconds=2.0, degrees=30.0):
    """A tilt of `degrees` over `seconds` (by the clock: the rate holds until it is set back to 0):
    gyroscope `axis_rate(rad/s)`, force `force_of(angle)`; then 3 s held still at the tilt."""
    rate = math.radians(degrees) / seconds
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        reading(d, axis_rate(rate), force_of(math.radians(degrees) * elapsed / seconds))
        time.sleep(0.005)
    still(d, 3, force_of(math.radians(degrees)))


def still(d, seconds, force=(0, 0, G)):
    end = time.time() + seconds
    while time.time() < end:
        reading(d, (0, 0, 0), force)
        time.sleep(0.01)


# 1. An earlier run's code, and a mistyped one.
port = free_port()
first = Run(port)
old_url = first.url
first.stop()
run = Run(port)
d = phone_browser()
try:
    for label, url in (("an earlier run's code", old_url),
                       ("a mistyped code", run.url[:-3] + ("A" if run.url[-3] != "A" else "B") + run.url[-2:])):
        said_before = run.errors().count("code this run does not know")
        d.get("about:blank")  # a new load (only the fragment changes between the two URLs)
        opened = time.time()
        d.get(url)
        words = None
        while time.time() < opened + 2:
            text, cls = status(d)
            if "QR code" in text and cls == "bad":
                words = text
                break
            time.sleep(0.05)
        took = time.time() - opened
        if not words:
            fail(f"{label}: the page did not say within 2 s what is wrong: {status(d)}")
        # The terminal's line, within 1 s of the page's connection (each kind said once per 5 s).
        if said_before == 0 and not run.wait_said("code this run does not know", 1.0):
            fail(f"{label}: the terminal did not say it within 1 s: {run.errors()[-300:]}")
        print(f"phone as a person: {label}: the page said within {took:.2f} s: \"{words}\"; the terminal: "
              f"\"{[l for l in run.errors().splitlines() if 'does not know' in l][-1].replace('mouse3d: ', '')}\"")
        if label == "an earlier run's code":
            shot(d, "phone-old-code.png")
finally:
    d.quit()

# 2. No motion sensors (a desktop browser, or motion access refused).
d = phone_browser(sensors=False)
try:
    d.get(run.url)
    if not wait_hook(d, "connected", 10, keep_reading=False):
        fail(f"the page did not connect: {hook(d)}")
    tap(d, "start")
    started = time.time()
    said = None
    while time.time() < started + 3.5:
        text, cls = status(d)
        if "No motion readings" in text:
            said = (text, cls, time.time() - started)
            break
        if cls == "live":
            fail(f"no sensors, yet the page shows green: {text}")
        time.sleep(0.05)
    if not said or said[1] != "bad":
        fail(f"no sensors: the page did not say so within 3 s: {status(d)}")
    if not run.wait_said("no motion readings yet", 6):
        fail(f"no sensors: the terminal did not say so: {run.errors()[-300:]}")
    shot(d, "phone-no-sensors.png")
    print(f"phone as a person: no motion sensors: the page said after {said[2]:.1f} s \"{said[0][:60]}...\" (not green); "
          "the terminal: phone connected, no motion readings yet")
finally:
    d.quit()
run.stop()

# 3. Portrait's top edge, then landscape's far edge at 90 and 270: the same pitch.
pitches = {}
for angle in (0, 90, 270):
    port = free_port()
    run = Run(port)
    d = phone_browser(landscape_angle=angle or None)
    try:
        start_streaming(d, run.url)
        if hook(d)["angle"] != angle:
            fail(f"the page reports screen angle {hook(d)['angle']}, not {angle}")
        still(d, 3)
        before = run.frames()[-1]["pitch"]
        # The far edge up by 30 degrees, in the device's axes (W3C Screen Orientation: the angle is how
        # far the device is turned counterclockwise): portrait, the top edge (+y) rises, a turn about
        # +x; at 90 the far side is the right edge (+x), a turn about -y; at 270 the left edge (-x),
        # a turn about +y. The force (+g up) tips toward the raised edge.
        if angle == 0:
            tilt(d, lambda w: (w, 0, 0), lambda a: (0, G * math.sin(a), G * math.cos(a)))
        elif angle == 90:
            tilt(d, lambda w: (0, -w, 0), lambda a: (G * math.sin(a), 0, G * math.cos(a)))
        else:
            tilt(d, lambda w: (0, w, 0), lambda a: (-G * math.sin(a), 0, G * math.cos(a)))
        after = run.frames()[-1]["pitch"]
        pitches[angle] = math.degrees(after - before)
        if angle == 90:
            shot(d, "phone-landscape.png")
        if angle == 0:
            shot(d, "phone-portrait.png")
    finally:
        d.quit()
        run.stop()
    print(f"phone as a person: screen angle {angle}: the far edge raised 30 deg pitched {pitches[angle]:+.2f} deg")
for angle in (0, 90, 270):
    if abs(abs(pitches[angle]) - 30) > 1:
        fail(f"at screen angle {angle} the 30 deg tilt pitched {pitches[angle]:.2f} deg")
if not (pitches[0] * pitches[90] > 0 and pitches[0] * pitches[270] > 0):
    fail(f"landscape pitched the other way from portrait: {pitches}")

# 4. A 30 s outage with --phone-remember, the page left open.
port = free_port()
run = Run(port, ["--phone-remember"])
d = phone_browser()
try:
    start_streaming(d, run.url)
    still(d, 2)
    run.stop()
    down = time.time()
    while time.time() < down + 30:
        still(d, 0.5)
    run = Run(port, ["--phone-remember"])
    back = time.time()
    while time.time() < back + 15 and not (hook(d)["connected"] and len(run.frames()) > 60):
        still(d, 0.2)
    if not hook(d)["connected"]:
        fail(f"after the outage the page did not reconnect by itself: {status(d)} {run.errors()[-300:]}")
    reconnected = time.time() - back
    still(d, 8)
finally:
    d.quit()
summary = run.stop()
line = next((l for l in summary.splitlines() if "readings in" in l), "")
p99 = re.search(r"p99 ([0-9.]+) ms", line)
print(f"phone as a person: after a 30 s outage the page reconnected by itself in {reconnected:.1f} s; {line.replace('mouse3d: ', '')}")
if not p99 or float(p99.group(1)) > 100:
    fail(f"reading -> fusion p99 over 100 ms after the outage: {line}")
if "stale" in line:
    stale = int(re.search(r"(\d+) stale", line).group(1))
    if stale > 30:
        fail(f"{stale} stale readings reached mouse3d after the outage (dropped, but the page should not send them)")

# 5. http:// typed instead of https://.
port = free_port()
run = Run(port)
d = phone_browser()
try:
    plain = run.url.replace("https://", "http://")
    d.get(plain)
    end = time.time() + 10
    while time.time() < end and not hook(d).get("connected"):
        time.sleep(0.1)
    landed = d.current_url
    if not landed.startswith("https://") or not landed.endswith("#" + run.url.split("#", 1)[1]) or not hook(d)["connected"]:
        fail(f"{plain} did not land on the page with its code: {landed} {hook(d)}")
    print(f"phone as a person: {plain.split('#')[0]}#... landed on {landed.split('#')[0]}#<the code>, connected")
finally:
    d.quit()
run.stop()

# 6. A normal session: the certificate warning, Advanced, Proceed; Start; 10 s; close.
port = free_port()
run = Run(port)
d = phone_browser(accept_insecure=False)
try:
    d.get(run.url)
    end = time.time() + 10
    while time.time() < end and not d.find_elements(By.ID, "details-button"):
        time.sleep(0.1)
    if not d.find_elements(By.ID, "details-button"):
        fail(f"no certificate warning with an Advanced button: {d.title}")
    d.find_element(By.ID, "details-button").click()
    d.find_element(By.ID, "proceed-link").click()
    start_streaming(d, d.current_url)
    still(d, 10)
    d.get("about:blank")
finally:
    d.quit()
time.sleep(0.5)
summary = run.stop()
refused = [l for l in summary.splitlines() if "refused" in l]
everyday = next((l for l in summary.splitlines() if "browsers left" in l), "nothing of the kind")
print(f"phone as a person: a normal session through the certificate warning: {len(refused)} refusal lines; {everyday.replace('mouse3d: ', '')}")
if refused:
    fail(f"a normal session was counted as refused: {refused}")
print(f"phone as a person: screenshots in {shots}")
print("phone as a person: PASS")
