#!/usr/bin/python3
"""The phone's QR code as a person meets it: `mouse3d run --source phone` in a tmux pane of a default
terminal's size (80x24) and of a large one (100x50), the pane captured, drawn as an image, and the
code decoded by zbarimg (Debian's zbar-tools): the decoded text must equal a URL that is fully
visible on the same screen on one line (not wrapped), and the whole code must be on the screen.

usage: qr_test.py MOUSE3D [IMAGE_DIR]

Prints one line per pane; exits 1 on the first failure. Skips (exit 0, with the reason) only when
tmux, zbarimg or Python's PIL is not installed (Tests/setup-debian.sh --vm installs them).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Browser"))
from browser_support import Verdicts, free_port  # noqa: E402

verdicts = Verdicts("terminal QR")
for tool in ("tmux", "zbarimg"):
    if not shutil.which(tool):
        verdicts.skip(f"{tool} is not installed; Tests/setup-debian.sh --vm installs tmux and zbar-tools")
try:
    from PIL import Image
except ImportError as e:
    verdicts.skip(f"Python's PIL is not installed ({e}); Tests/setup-debian.sh --vm installs python3-pil")

binary = os.path.abspath(sys.argv[1])
images = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="mouse3d-qr-")
os.makedirs(images, exist_ok=True)
# Light half of a cell per character: (top, bottom).
HALVES = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1)}
SCALE = 6  # pixels per module


def render(lines, width, path):
    """The pane as an image: each cell one module wide and two high (its half blocks), text dark."""
    image = Image.new("L", (width * SCALE, len(lines) * 2 * SCALE), 0)
    pixels = image.load()
    for row, line in enumerate(lines):
        for col, ch in enumerate(line[:width]):
            top, bottom = HALVES.get(ch, (0, 0))
            for half, light in ((0, top), (1, bottom)):
                if light:
                    for y in range(SCALE):
                        for x in range(SCALE):
                            pixels[col * SCALE + x, (row * 2 + half) * SCALE + y] = 255
    # A margin of light around the screen, as a terminal's edge would be to a camera.
    framed = Image.new("L", (image.width + 8 * SCALE, image.height + 8 * SCALE), 255)
    framed.paste(image, (4 * SCALE, 4 * SCALE))
    framed.save(path)


def pane(columns, rows):
    home = tempfile.mkdtemp(prefix="mouse3d-qr-home-")
    session = f"mouse3d-qr-{os.getpid()}-{columns}"
    port = free_port()
    env = f"HOME={home} XDG_CONFIG_HOME={home}/config XDG_DATA_HOME={home}/data"
    # As a person runs it (the frames go to a file, so that the terminal keeps what was said).
    command = f"cd {home} && env {env} {binary} run --source phone:0.0.0.0:{port} --print > {home}/frames.txt; sleep 60"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", str(columns), "-y", str(rows), command], check=True)
    try:
        end = time.time() + 20
        screen = []
        while time.time() < end:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True,
                                    check=True).stdout.split("\n")[:rows]
            if any("running phone" in line for line in screen):
                break
            time.sleep(0.2)
        else:
            verdicts.fail(f"{columns}x{rows}: mouse3d did not start: {screen}")
        time.sleep(0.3)
        screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True,
                                check=True).stdout.split("\n")[:rows]
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    # Its terminal gone (as when a person closes the window), mouse3d ends: the kernel's SIGHUP is a
    # hangup, not a reload (it once went on holding the port and the phone, orphaned).
    def still_running():
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    args = f.read().split(b"\0")
            except OSError:
                continue
            if f"phone:0.0.0.0:{port}".encode() in args and b"run" in args:
                found.append(pid)
        return found

    end = time.time() + 10
    while time.time() < end and still_running():
        time.sleep(0.1)
    left = still_running()
    if left:
        subprocess.run(["kill", "-KILL", *left], check=False)
        verdicts.fail(f"{columns}x{rows}: mouse3d (pid {', '.join(left)}) still ran 10 s after its tmux session was killed")
    print(f"terminal QR: {columns}x{rows}: mouse3d ended when its terminal closed")
    path = os.path.join(images, f"qr-{columns}x{rows}.png")
    render(screen, columns, path)
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", path], capture_output=True, text=True)
    text = decoded.stdout.strip()
    # URLs whole on one line of the screen (a wrapped one continues at the next line's start).
    visible = []
    for i, line in enumerate(screen):
        at = line.find("https://")
        if at < 0:
            continue
        url = line[at:].split()[0]
        wrapped = len(line.rstrip()) >= columns and i + 1 < len(screen) and screen[i + 1][:1] not in ("", " ")
        if not wrapped:
            visible.append(url)
    code_rows = [i for i, line in enumerate(screen) if "█" in line]
    # The code's first line is its quiet zone, light across: a line of the code itself at the top of
    # the screen would mean the rest scrolled off.
    whole = bool(code_rows) and set(screen[code_rows[0]].strip()) == {"█"}
    print(f"terminal QR: {columns}x{rows}: the code takes rows {code_rows[0] + 1}-{code_rows[-1] + 1} of {rows}; "
          f"zbarimg read '{text}'; URLs whole on one line: {visible} ({path})")
    if decoded.returncode != 0 or not text:
        verdicts.fail(f"{columns}x{rows}: zbarimg could not read the code on the screen ({decoded.stderr.strip()}): "
                      + "\n".join(screen))
    if text not in visible:
        verdicts.fail(f"{columns}x{rows}: the code's URL '{text}' is not on the screen whole on one line: {visible}")
    if not whole:
        verdicts.fail(f"{columns}x{rows}: the code's top row scrolled off the screen")


pane(80, 24)
pane(100, 50)
print("terminal QR: PASS")
