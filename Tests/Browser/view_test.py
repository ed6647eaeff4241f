#!/usr/bin/python3
"""Drives mouse3d's live view in headless Chromium (Debian's chromium + chromium-driver, Selenium).

usage: view_test.py MOUSE3D SAMPLE_LOG [SCREENSHOT.png]

Runs `MOUSE3D run --source replay:SAMPLE_LOG --loop --print --format jsonl --view 127.0.0.1:PORT`
and checks, against the real browser:
  - the page loads with no console error and no request to any other host;
  - window.mouse3dView.connected becomes true and frames advance at >= 50 per second;
  - the attitude the page holds equals what --print printed for the same sequence number (0.01 deg);
  - two screenshots a second apart differ and the model's canvas is not blank in either;
  - the recenter button is accepted (204) from the page itself;
  - after the process is killed (SIGKILL) and started again on the same port, the page is live again
    within 10 s without a reload, and the recenter button works again (the new token comes over the
    new connection).
Prints one line per check; exits 1 on the first failure. Skips (exit 0, with the reason) only when
the browser or Selenium is not installed.
"""
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlparse


def skip(why):
    print(f"browser: SKIP: {why}")
    sys.exit(0)


def fail(why):
    print(f"browser: FAIL: {why}")
    sys.exit(1)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError as e:
    skip(f"Selenium is not installed ({e}); Tests/setup-debian.sh --vm installs python3-selenium")
for tool in ("chromium", "chromedriver"):
    if not shutil.which(tool):
        skip(f"{tool} is not installed; Tests/setup-debian.sh --vm installs chromium and chromium-driver")

binary, sample = sys.argv[1], sys.argv[2]
shot = sys.argv[3] if len(sys.argv) > 3 else None
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
home = tempfile.mkdtemp(prefix="mouse3d-browser-")
out_path = os.path.join(home, "print.jsonl")


def start():
    out = open(out_path, "a")
    p = subprocess.Popen([binary, "run", "--source", f"replay:{sample}", "--loop", "--print", "--format", "jsonl",
                          "--view", f"127.0.0.1:{port}"], stdout=out, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "HOME": home, "XDG_CONFIG_HOME": home})
    line = p.stderr.readline()
    if "view at" not in line:
        fail(f"mouse3d did not start the view: {line.strip()} {p.stderr.read()[:400] if p.poll() is not None else ''}")
    return p


proc = start()
options = webdriver.ChromeOptions()
options.binary_location = shutil.which("chromium")
for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1300,900",
          "--no-first-run", "--disable-background-networking", "--disable-component-update"):
    options.add_argument(a)
options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
driver.set_page_load_timeout(30)
try:
    url = f"http://127.0.0.1:{port}/"
    driver.get(url)
    hook = lambda: driver.execute_script("return window.mouse3dView && JSON.stringify(window.mouse3dView)")

    def wait_connected(seconds):
        end = time.time() + seconds
        while time.time() < end:
            state = hook()
            if state and json.loads(state)["connected"]:
                return json.loads(state)
            time.sleep(0.1)
        return None

    if not wait_connected(10):
        fail(f"window.mouse3dView.connected did not become true in 10 s: {hook()}")
    print("browser: connected")

    a = json.loads(hook()); t0 = time.time()
    time.sleep(2)
    b = json.loads(hook()); rate = (b["frames"] - a["frames"]) / (time.time() - t0)
    print(f"browser: {rate:.1f} frames/s reach the page")
    if rate < 50:
        fail(f"frames advance at {rate:.1f}/s, under 50")

    # The page's attitude against what --print printed for the same sequence number.
    matched = 0
    for _ in range(20):
        state = json.loads(hook())
        printed = {}
        with open(out_path) as fh:
            for line in fh:
                try:
                    o = json.loads(line)
                except ValueError:
                    continue
                printed[o["seq"]] = o
        seq = state.get("seq")
        if seq in printed:
            o = printed[seq]
            for k in ("roll", "pitch", "yaw"):
                if abs(state["attitude"][k] - math.degrees(o[k])) > 0.01:
                    fail(f"seq {seq}: page {k} {state['attitude'][k]} against print {math.degrees(o[k])}")
            matched += 1
        time.sleep(0.05)
    if matched < 5:
        fail(f"only {matched} of 20 page samples matched a printed frame")
    print(f"browser: attitude equals --print for {matched} sampled frames (within 0.01 deg)")

    def model_pixels():
        return driver.execute_script("""
            const c = document.querySelector('canvas.model'); if (!c) return 0;
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] + d[i + 1] + d[i + 2]) > 60) n++;
            return n;""")
    s1 = driver.get_screenshot_as_png(); p1 = model_pixels()
    time.sleep(1)
    s2 = driver.get_screenshot_as_png(); p2 = model_pixels()
    if s1 == s2:
        fail("two screenshots a second apart are identical: the model does not turn")
    if min(p1, p2) < 2000:
        fail(f"the model's canvas is blank ({p1}, {p2} lit pixels)")
    print(f"browser: screenshots differ; the model has {p1} and {p2} lit pixels")
    if shot:
        with open(shot, "wb") as fh:
            fh.write(s2)
        print(f"browser: screenshot written to {shot}")

    # The recenter button (a loopback view of a process that fuses): the page's own token and origin pass.
    driver.execute_script("document.getElementById('recenter').click()")
    end = time.time() + 5
    while time.time() < end and not json.loads(hook()).get("recentred"):
        time.sleep(0.05)
    if json.loads(hook()).get("recentred") != 1:
        fail("the recenter button did not get a 204 from the view")
    print("browser: the recenter button works from the page (token and origin accepted)")

    errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    if errors:
        fail(f"console errors: {errors[:3]}")
    hosts = set()
    for entry in driver.get_log("performance"):
        m = json.loads(entry["message"])["message"]
        if m.get("method") == "Network.requestWillBeSent":
            u = urlparse(m["params"]["request"]["url"])
            if u.scheme not in ("data", "about"):
                hosts.add(u.netloc)
    if hosts - {f"127.0.0.1:{port}"}:
        fail(f"the page asked other hosts: {sorted(hosts)}")
    print(f"browser: no console error; requests only to {sorted(hosts)}")

    # Kill the process outright and start it again on the same port: the page comes back by itself.
    proc.send_signal(signal.SIGKILL); proc.wait()
    end = time.time() + 5
    while time.time() < end and json.loads(hook())["connected"]:
        time.sleep(0.05)
    if json.loads(hook())["connected"]:
        fail("the page still says connected 5 s after the process was killed")
    restarted = time.time()
    proc = start()
    if not wait_connected(10):
        fail("the page was not live again within 10 s of the restart")
    before = json.loads(hook())["frames"]; time.sleep(0.5)
    after = json.loads(hook())["frames"]
    if after <= before:
        fail("connected again, but frames do not advance")
    print(f"browser: live again {time.time() - restarted:.1f} s after the restart, without a reload")
    # The restarted process has a new recenter token; the page learned it over the new connection.
    driver.execute_script("document.getElementById('recenter').click()")
    end = time.time() + 5
    while time.time() < end and json.loads(hook()).get("recentred") != 2:
        time.sleep(0.05)
    if json.loads(hook()).get("recentred") != 2:
        fail("after the restart the recenter button was refused (the page kept the old token)")
    print("browser: the recenter button works after the restart (the new token came over the socket)")
    print("browser: PASS")
finally:
    driver.quit()
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
