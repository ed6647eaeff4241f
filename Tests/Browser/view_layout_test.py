#!/usr/bin/python3
"""The live view as a person sees it, in headless Chromium: a desktop window (1280x800) and a phone's
narrow screen (360 px), the end of a replay, and the device drawn as what it is.

usage: view_layout_test.py MOUSE3D SAMPLE_LOG [SCREENSHOT_DIR]

  - at 1280x800 nothing scrolls (no scrollbar from a few pixels too many);
  - at 360 px nothing scrolls sideways and every canvas (the model, the dials, the charts) is whole
    on the screen;
  - a replay that ends: the page says the source has ended, not "reconnecting", and keeps saying it
    after the process has stopped;
  - the model's drawing: its top face and the arrow to the front are drawn, and nothing of a label
    lies outside the device (every light text pixel of the model's canvas is inside its silhouette);
  - screenshots (view-1280x800.png, view-phone.png, view-gamepad.png, view-360.png, view-ended.png)
    in SCREENSHOT_DIR.
Prints one line per check; exits 1 on the first failure. Skips (exit 0, with the reason) only when
the browser or Selenium is not installed.
"""
import os
import subprocess
import sys
import tempfile
import time

from browser_support import Verdicts, chromium, free_port, require_browser

verdicts = Verdicts("view layout")
fail = verdicts.fail
webdriver = require_browser(verdicts)

binary, sample = sys.argv[1], sys.argv[2]
shots = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="mouse3d-view-shots-")
os.makedirs(shots, exist_ok=True)
home = tempfile.mkdtemp(prefix="mouse3d-view-layout-")


def start(extra, speed="1"):
    port = free_port()
    err = os.path.join(home, f"err-{port}.txt")
    p = subprocess.Popen([binary, "run", "--source", f"replay:{sample}", "--speed", speed, "--view", f"127.0.0.1:{port}", *extra],
                         stdout=subprocess.DEVNULL, stderr=open(err, "w"),
                         env={**os.environ, "HOME": home, "XDG_CONFIG_HOME": home})
    end = time.time() + 20
    while time.time() < end:
        text = open(err).read()
        if "view at" in text:
            return p, next(w for w in text.split() if w.startswith("http://") and "token=" in w)
        if p.poll() is not None:
            fail(f"mouse3d exited: {text[-400:]}")
        time.sleep(0.05)
    fail("the view did not start")


def browser(width, height, mobile):
    _, new = chromium(webdriver, (f"--window-size={max(width, 500)},{max(height, 500)}",), {"browser": "ALL"})
    d = new()
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                             "mobile": mobile})
    return d


def wait(d, script, seconds):
    end = time.time() + seconds
    while time.time() < end:
        if d.execute_script(script):
            return True
        time.sleep(0.05)
    return False


overflow = """return [document.documentElement.scrollWidth, document.documentElement.scrollHeight,
                   window.innerWidth, window.innerHeight,
                   Math.max(...[...document.querySelectorAll('canvas')].map(c => c.getBoundingClientRect().right))]"""
# Light text pixels of the model's canvas outside the device's silhouette: the canvas drawn again with
# the faces only (no marks) would be the silhouette; instead, a pixel counts as outside when it is
# light and every pixel 3 away on either side along its row is the background.
outside_text = """const c = document.querySelector('canvas.model'), g = c.getContext('2d');
  const {data, width, height} = g.getImageData(0, 0, c.width, c.height);
  const bg = i => data[i + 3] === 0 || (data[i] < 20 && data[i + 1] < 24 && data[i + 2] < 28);
  let light = 0, outside = 0;
  for (let y = 0; y < height; y++) for (let x = 4; x < width - 4; x++) {
    const i = (y * width + x) * 4;
    if (data[i] > 200 && data[i + 1] > 200 && data[i + 2] > 200) {
      light++;
      if (bg(i - 16) && bg(i + 16)) outside++;
    }
  }
  return [light, outside];"""

def drawn(d):
    """The labels' pixels once the drawing has settled: two reads 0.2 s apart that agree (deadline
    10 s), rather than a guess at how long drawing takes."""
    last = d.execute_script(outside_text)
    end = time.time() + 10
    while time.time() < end:
        time.sleep(0.2)
        now = d.execute_script(outside_text)
        if now == last and now[0] > 0:
            return now
        last = now
    return last


def live_layout(d, label, name):
    """Loads the page, waits for it to go live, screenshots it: its size, the window's, and where its
    canvases end."""
    d.get(url)
    if not wait(d, "return window.mouse3dView.connected && window.mouse3dView.frames > 20", 15):
        fail(f"the view did not go live at {label}")
    time.sleep(1)
    d.save_screenshot(os.path.join(shots, name))
    return d.execute_script(overflow)


proc, url = start(["--loop"])
try:
    # 1280x800: the whole page, no scrollbar; each device's drawing keeps its labels inside.
    d = browser(1280, 800, False)
    try:
        sw, sh, iw, ih, right = live_layout(d, "1280x800", "view-1280x800.png")
        print(f"view layout: 1280x800: the page is {sw}x{sh} in a {iw}x{ih} window")
        if sw > iw or sh > ih:
            fail(f"at 1280x800 the page scrolls: {sw}x{sh} in {iw}x{ih}")
        for kind in ("sensor", "phone", "gamepad"):
            if kind != "sensor":
                d.get(url + f"&device={kind}")
                if not wait(d, "return window.mouse3dView.frames > 20", 10):
                    fail(f"the {kind}'s page did not go live")
                d.save_screenshot(os.path.join(shots, f"view-{kind}.png"))
            light, outside = drawn(d)
            print(f"view layout: the {kind}'s drawing: {light} light pixels of its labels, {outside} of them outside it")
            if light < 20 or outside > 0:
                fail(f"the {kind}'s labels: {light} light pixels, {outside} outside the device")
    finally:
        d.quit()
    # 360 px wide, a phone's screen: nothing sideways, every canvas whole.
    d = browser(360, 740, True)
    try:
        sw, sh, iw, ih, right = live_layout(d, "360 px", "view-360.png")
        print(f"view layout: 360 px: the page is {sw} px wide, its canvases end at {right:.0f} px")
        if sw > iw or right > iw:
            fail(f"at 360 px the page scrolls sideways or a canvas is cut: {sw} px wide, canvases to {right:.0f}")
    finally:
        d.quit()
finally:
    proc.terminate()
    proc.wait(timeout=10)

# A replay that ends (12 s of log at 2x: 6 s). The browser starts first: on a busy machine its start
# took longer than a shorter replay, which had ended, and mouse3d gone, before the page asked (CI).
d = browser(1280, 800, False)
proc = None
try:
    proc, url = start([], speed="2")
    d.get(url)
    if not wait(d, "return window.mouse3dView.connected", 10):
        fail("the view did not go live for the ending replay")
    ended = wait(d, "return window.mouse3dView.ended", 15)
    said = d.execute_script("return document.getElementById('status').textContent")
    proc.wait(timeout=10)
    # After mouse3d stopped, once the page has seen the connection close (its close handler sets
    # the status at once), the status must still say the source ended, not that it reconnects.
    wait(d, "return !window.mouse3dView.connected", 10)
    after = d.execute_script("return document.getElementById('status').textContent")
    d.save_screenshot(os.path.join(shots, "view-ended.png"))
    print(f"view layout: a replay that ends: \"{said}\", then after mouse3d stopped: \"{after}\"")
    if not ended or "ended" not in said or "ended" not in after or "reconnecting" in after:
        fail(f"the end of the source was not said: {said!r} then {after!r}")
finally:
    d.quit()
    if proc is not None and proc.poll() is None:
        proc.terminate()
print(f"view layout: screenshots in {shots}")
print("view layout: PASS")
