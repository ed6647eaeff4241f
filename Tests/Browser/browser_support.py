"""What the browser tests share: their one-line verdicts, Selenium and Chromium found (or a skip that
says why), a free loopback port, and headless Chromium started with the options they need."""
import json
import shutil
import socket
import sys


class Verdicts:
    """`PREFIX: SKIP: why` (exit 0) and `PREFIX: FAIL: why` (exit 1), one line each."""

    def __init__(self, prefix):
        self.prefix = prefix

    def skip(self, why):
        print(f"{self.prefix}: SKIP: {why}")
        sys.exit(0)

    def fail(self, why):
        print(f"{self.prefix}: FAIL: {why}")
        sys.exit(1)


def require_browser(verdicts):
    """Selenium's webdriver module, after checking that it and Chromium with its driver are installed."""
    try:
        from selenium import webdriver
    except ImportError as e:
        verdicts.skip(f"Selenium is not installed ({e}); Tests/setup-debian.sh --vm installs python3-selenium")
    for tool in ("chromium", "chromedriver"):
        if not shutil.which(tool):
            verdicts.skip(f"{tool} is not installed; Tests/setup-debian.sh --vm installs chromium and chromium-driver")
    return webdriver


def jsonl_frames(path):
    """The whole JSON lines of `--print --format jsonl` written to `path` so far (a last line still
    being written is left for the next look)."""
    found = []
    with open(path) as fh:
        for line in fh:
            try:
                found.append(json.loads(line))
            except ValueError:
                pass
    return found


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chromium(webdriver, extra=(), logs=None):
    """Headless Chromium (Debian's, through its chromedriver) with `extra` arguments and log capture."""
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
              "--disable-component-update", *extra):
        options.add_argument(a)
    if logs:
        options.set_capability("goog:loggingPrefs", logs)
    return options, lambda: webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
