#!/usr/bin/python3
"""CalDAV sync times, Hearth against Radicale, for `hearth-bench caldav`.

usage: caldav_bench.py CALENDAR_URL USER PASSWORD OUT_DIR NAME=PYTHON…

CALENDAR_URL is Hearth's calendar of the bench's tasks. Every task is read from it (one
calendar-query) and written, text for text, into a Radicale collection of its own for each
NAME=PYTHON given (the Python that has `radicale`: Debian's, a venv's). Then, with
vdirsyncer (Debian's 0.19) on each server in turn, the same steps: its first full sync into
an empty directory, and the sync after one task changed on the server (a PUT). The client's
directory is in memory (/dev/shm): its fsyncs would otherwise weigh more than any server,
and vary with the disk from one minute to the next. ROUNDS rounds (the environment's
CALDAV_BENCH_ROUNDS, default 1), each server's order turned every round; each step's best
round is kept. Prints one JSON object: per server, the seconds of each step.
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import uuid
import xml.etree.ElementTree as ElementTree

from vdirsyncer_pair import Pair

calendar_url, user, password, out = sys.argv[1:5]
peers = dict(argument.split("=", 1) for argument in sys.argv[5:])
rounds = int(os.environ.get("CALDAV_BENCH_ROUNDS", "1"))
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
memory = "/dev/shm" if os.path.isdir("/dev/shm") else out
clients = tempfile.mkdtemp(prefix="hearth-caldav-bench-", dir=memory)


def request(method, url, body=None, headers=None, auth=(user, password)):
    message = urllib.request.Request(url, data=body, method=method, headers=dict(headers or {}))
    if auth:
        message.add_header("Authorization", "Basic " + base64.b64encode(
            f"{auth[0]}:{auth[1]}".encode()).decode())
    with urllib.request.urlopen(message, timeout=600) as response:
        return response.status, dict(response.headers), response.read()


# Every task, as Hearth serves it.
_, _, body = request("REPORT", calendar_url, body=b"""<?xml version="1.0"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
<d:prop><c:calendar-data/></d:prop>
<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"/></c:comp-filter></c:filter>
</c:calendar-query>""", headers={"Depth": "1", "Content-Type": "application/xml"})
tree = ElementTree.fromstring(body)
tasks = {}
for response in tree.findall("{DAV:}response"):
    href = response.find("{DAV:}href").text
    data = response.find(".//{urn:ietf:params:xml:ns:caldav}calendar-data").text
    tasks[href.rsplit("/", 1)[1]] = data
count = len(tasks)


def free_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def start_radicale(name, python):
    """Radicale with the same tasks, as files in its collection; its calendar's URL."""
    root = os.path.join(out, name)
    collection = os.path.join(root, "collections", "collection-root", "bench", "tasks")
    os.makedirs(collection)
    with open(os.path.join(collection, ".Radicale.props"), "w") as file:
        json.dump({"tag": "VCALENDAR", "C:supported-calendar-component-set": "VTODO"}, file)
    for href, text in tasks.items():
        with open(os.path.join(collection, href), "w") as file:
            file.write(text)
    port = free_port()
    config = os.path.join(root, "config")
    with open(config, "w") as file:
        file.write(f"""[server]
hosts = 127.0.0.1:{port}
[auth]
type = none
[storage]
filesystem_folder = {root}/collections
[web]
type = none
[logging]
level = warning
""")
    process = subprocess.Popen([python, "-m", "radicale", "--config", config],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/bench/tasks/"
    deadline = time.time() + 30
    while True:
        try:
            request("PROPFIND", url, headers={"Depth": "0"})
            break
        except Exception:
            if time.time() > deadline or process.poll() is not None:
                raise SystemExit(f"FAILED: radicale ({name}) did not start")
            time.sleep(0.2)
    return process, url


def measure(name, url, round):
    """vdirsyncer's first sync of the calendar at `url`, then its sync after one change."""
    pair = Pair(os.path.join(clients, f"vdirsyncer-{name}-{round}"), url, user, password, "b")
    local = pair.local

    def vdirsyncer(*arguments):
        start = time.monotonic()
        done = pair.run(*arguments)
        if done.returncode != 0:
            raise SystemExit(f"FAILED: vdirsyncer {arguments} on {name}: {done.stderr[-2000:]}")
        return time.monotonic() - start

    vdirsyncer("discover")
    first = vdirsyncer("sync")
    pulled = len(os.listdir(local))
    if pulled != count:
        raise SystemExit(f"FAILED: {name}: the first sync pulled {pulled} of {count}")
    href = sorted(tasks)[count // 2]
    _, headers, text = request("GET", url + href)
    changed = text.decode().replace("SUMMARY:", "SUMMARY:Changed ", 1).encode()
    request("PUT", url + href, body=changed,
            headers={"Content-Type": "text/calendar", "If-Match": headers["ETag"]})
    one = vdirsyncer("sync")
    with open(os.path.join(local, href)) as file:
        if "SUMMARY:Changed " not in file.read():
            raise SystemExit(f"FAILED: {name}: the changed task was not pulled")
    return {"first": first, "one": one}


def serve_times(url):
    """The server's part of a first sync: the listing, then every task at once (stderr)."""
    start = time.monotonic()
    request("PROPFIND", url, body=b'<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop>'
            b'<d:getetag/></d:prop></d:propfind>', headers={"Depth": "1"})
    listed = time.monotonic() - start
    hrefs = "".join(f"<d:href>{urllib.parse.urlparse(url).path}{h}</d:href>" for h in tasks)
    start = time.monotonic()
    request("REPORT", url, body=(
        '<?xml version="1.0"?><c:calendar-multiget xmlns:d="DAV:" '
        'xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>'
        + hrefs + "</c:calendar-multiget>").encode(), headers={"Depth": "1"})
    print(f"serve {url}: listing {listed:.2f} s, multiget of all {time.monotonic() - start:.2f} s",
          file=sys.stderr)


servers = {"hearth": (None, calendar_url)}
try:
    for name, python in peers.items():
        servers[name] = start_radicale(name, python)
    for name, (_, url) in servers.items():
        serve_times(url)
    result = {"tasks": count}
    names = list(servers)
    for round in range(rounds):
        for name in names[round % len(names):] + names[:round % len(names)]:
            times = measure(name, servers[name][1], round)
            best = result.setdefault(name, times)
            result[name] = {step: min(best[step], times[step]) for step in times}
    print(json.dumps(result))
finally:
    shutil.rmtree(clients, ignore_errors=True)
    for process, _ in servers.values():
        if process is None:
            continue
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:  # it waits on idle keep-alive connections
            process.kill()
            process.wait()
