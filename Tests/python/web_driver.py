"""What the browser tests and `hearth-bench web` share: a writer through the hub (pyzmq, as
a plugin), hearth-web started and stopped, and headless Chromium under Selenium."""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import zmq
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

from hearth_keys import hub_key, key_pair


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")


def wait_for(condition, what, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if condition():
                return
        except Exception:  # the page is changing under the query: ask again
            pass
        time.sleep(0.02)
    raise SystemExit(f"FAILED: waited {timeout} s for {what}")


class Hub:
    """Plugin `plugin` of the hub serving `runtime`, over ZeroMQ with CURVE."""

    def __init__(self, runtime, key_file, plugin):
        self.plugin = plugin
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.curve_serverkey = hub_key(runtime)
        self.socket.curve_publickey, self.socket.curve_secretkey = key_pair(key_file)
        self.socket.connect(f"ipc://{runtime}/hub.sock")
        self.count = 0
        self.last_seq = 0

    def request(self, message):
        self.count += 1
        message = dict(message, v=1, id=f"{self.plugin}-{os.getpid()}-{self.count}")
        self.socket.send(json.dumps(message).encode())
        check(self.socket.poll(10000), f"a reply to {message['type']}")
        reply = json.loads(self.socket.recv())
        check(reply.get("type") != "error", reply)
        return reply

    def register(self, table, sql):
        self.request({"type": "register", "plugin": self.plugin, "version": "1.0",
                      "tables": [table], "migrations": [{"id": "1", "sql": sql}]})

    def write(self, sql, args=()):
        """Commits one statement; returns its sequence number."""
        reply = self.request({
            "type": "transaction", "plugin": self.plugin, "part": 0, "end": "commit",
            "statements": [{"sql": sql, "args": [{"text": a} if isinstance(a, str) else {"int": str(a)}
                                                 for a in args]}]})
        self.last_seq = reply["seq"]
        return reply["seq"]


class WebServer:
    """hearth-web on one free loopback port, kept across restarts (so a page's stream
    reconnects to it)."""

    def __init__(self, binary, database, runtime):
        self.binary, self.database, self.runtime = binary, database, runtime
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.token = None

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "--config", "none", "--database", self.database, "--runtime-dir",
             self.runtime, "--port", str(self.port)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        check(line.startswith("hearth-web: open http://"), f"hearth-web's link: {line!r}")
        self.token = line.strip().split("token=")[1]

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                raise SystemExit("FAILED: hearth-web did not stop within 10 s of SIGTERM")
            check(self.process.returncode == 0, f"hearth-web exited {self.process.returncode}")


class Browser:
    """Headless Chromium (Debian's, as root: no sandbox) with a profile of its own."""

    def __init__(self, shots):
        self.shots = shots
        self.home = tempfile.mkdtemp(prefix="hearth-chromium-")
        for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
            os.environ[name] = os.path.join(self.home, name.lower())
        options = Options()
        options.binary_location = "/usr/bin/chromium"
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-gpu", "--window-size=1280,900",
                     f"--user-data-dir={os.path.join(self.home, 'profile')}"):
            options.add_argument(flag)
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.driver.command_executor.set_timeout(60) if hasattr(
            self.driver.command_executor, "set_timeout") else None
        self.driver.set_page_load_timeout(30)
        self.driver.set_script_timeout(30)

    def wait_live(self):
        wait_for(lambda: self.driver.find_element("id", "live").text == "live", "the live stream")

    def feed_count(self, seq):
        return self.driver.execute_script(
            "return document.querySelectorAll('#feed li[data-seq=\"' + arguments[0] + '\"]').length",
            seq)

    def shot(self, name):
        self.driver.save_screenshot(os.path.join(self.shots, name + ".png"))

    def close(self):
        try:
            self.driver.quit()
        finally:
            # chrome_crashpad_handler leaves chromedriver's process group: end whatever still
            # runs with this profile.
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    command = open(f"/proc/{pid}/cmdline", "rb").read()
                except OSError:
                    continue
                if self.home.encode() in command:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except OSError:
                        pass
            shutil.rmtree(self.home, ignore_errors=True)
