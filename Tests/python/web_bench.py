#!/usr/bin/python3
"""hearth-web's figures in Chromium, for `hearth-bench web`.

usage: web_bench.py RUNTIME_DIR DATABASE KEY_FILE HEARTH_WEB COMMITS LOADS

- commit → DOM: COMMITS commits at 50 a second by plugin "webbench" (pyzmq), each a row
  that the open table page shows; for each, from just before the write is sent to the row's
  insertion in the page's DOM (a MutationObserver, on the page's clock, which is this
  machine's). Baseline: from the same instant to the commit's event reaching a ZeroMQ
  subscriber of the bus in this process.
- burst: 1,000 commits as fast as the writer goes, with the feed page open: how many
  appear, how many twice.
- page load: LOADS loads of the `reminders` table's page (the database holds the reminders
  the bench made), navigation start → load event; baseline: the login page, which reads
  nothing.
Prints one JSON object.
"""
import json
import sys
import time

import zmq

from web_driver import Browser, Hub, WebServer, check, wait_for

runtime, database, key_file, hearth_web = sys.argv[1:5]
commits, loads = int(sys.argv[5]), int(sys.argv[6])

hub = Hub(runtime, key_file, "webbench")
hub.register("benchrows", "CREATE TABLE benchrows (id INTEGER PRIMARY KEY, title TEXT, n INTEGER)")
server = WebServer(hearth_web, database, runtime)
server.start()
bus = hub.context.socket(zmq.SUB)
bus.setsockopt(zmq.SUBSCRIBE, b"table:benchrows")
bus.connect(f"ipc://{runtime}/bus.sock")
browser = Browser("/tmp")
result = {}
try:
    driver = browser.driver
    driver.get(server.base + "/login?token=" + server.token + "&next=/tables/benchrows")
    browser.wait_live()
    driver.execute_script("""
        window.inserted = {};
        new MutationObserver(function (records) {
          const now = performance.timeOrigin + performance.now();
          for (const record of records) for (const node of record.addedNodes) {
            if (node.dataset && node.dataset.key && node.cells && !(node.cells[2].textContent in window.inserted))
              window.inserted[node.cells[2].textContent] = now;
          }
        }).observe(document.getElementById("rows"), {childList: true});
    """)
    time.sleep(1.2)  # the bus subscription in place
    while bus.poll(0):
        bus.recv_multipart()
    sent, bus_seen = {}, {}
    interval = 1 / 50
    start = time.time()
    for i in range(commits):
        target = start + i * interval
        while time.time() < target:
            if bus.poll(max(0, int((target - time.time()) * 1000))):
                _, body = bus.recv_multipart()
                bus_seen.setdefault(json.loads(body)["seq"], time.time() * 1000)
        title = f"bench {i}"
        sent[title] = time.time() * 1000
        seq = hub.write("INSERT INTO benchrows (title, n) VALUES (?, ?)", [title, i])
        sent[title] = (sent[title], seq)
        while bus.poll(0):
            _, body = bus.recv_multipart()
            bus_seen.setdefault(json.loads(body)["seq"], time.time() * 1000)
    deadline = time.time() + 5
    while len(bus_seen) < commits and time.time() < deadline:
        if bus.poll(100):
            _, body = bus.recv_multipart()
            bus_seen.setdefault(json.loads(body)["seq"], time.time() * 1000)
    wait_for(lambda: driver.execute_script("return Object.keys(window.inserted).length") >= commits,
             "every commit's row in the page", timeout=30)
    inserted = driver.execute_script("return window.inserted")
    result["dom_ms"] = sorted(inserted[t] - sent[t][0] for t in sent)
    result["bus_ms"] = sorted(bus_seen[sent[t][1]] - sent[t][0] for t in sent if sent[t][1] in bus_seen)

    # The burst, on the feed page.
    driver.get(server.base + "/feed")
    browser.wait_live()
    burst = [hub.write("INSERT INTO benchrows (title, n) VALUES ('burst', ?)", [i]) for i in range(1000)]
    wait_for(lambda: driver.execute_script(
        "return document.querySelectorAll('#feed li[data-seq]').length") >= 1000 + 0,
        "the burst on the feed page", timeout=60)
    time.sleep(0.5)
    counts = driver.execute_script("""
        const counts = {};
        for (const item of document.querySelectorAll('#feed li[data-seq]'))
          counts[item.dataset.seq] = (counts[item.dataset.seq] || 0) + 1;
        return counts;""")
    result["burst_sent"] = len(burst)
    result["burst_shown"] = sum(1 for s in burst if counts.get(str(s), 0) >= 1)
    result["burst_twice"] = sum(1 for s in burst if counts.get(str(s), 0) > 1)

    def load(path):
        driver.get(server.base + path)
        return driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime")
    rows = driver.execute_script(
        "return fetch('/tables/reminders.json?limit=1').then(r => r.json()).then(j => j.total)")
    result["reminders"] = rows
    load("/tables/reminders")
    load("/login")
    result["load_ms"], result["login_ms"] = [], []
    for _ in range(loads):
        result["load_ms"].append(load("/tables/reminders"))
        result["login_ms"].append(load("/login"))
finally:
    browser.close()
    server.stop()
print(json.dumps(result))
