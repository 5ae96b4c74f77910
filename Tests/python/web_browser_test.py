#!/usr/bin/python3
"""hearth-web in a real browser: Debian's Chromium driven by Selenium.

usage: web_browser_test.py RUNTIME_DIR DATABASE KEY_FILE HEARTH_WEB OUT_DIR

Starts hearth-web on a free loopback port, writes through the hub with pyzmq as plugin
"webtest" (KEY_FILE is its key), and checks, in Chromium:
- the login: no page without the cookie; a wrong token refused; the token logs in;
- a commit by another plugin appears on the open table page, live;
- a title holding markup shows as text, and its script never runs;
- with the server stopped and started again, every commit made meanwhile appears on the
  feed page, none twice;
- a foreign Host or Origin is refused; the Content-Security-Policy is sent; a body or
  headers past the limits are refused;
- a stream more than 5,000 commits behind is told to reload, at the hub's sequence number.
Screenshots of each page go to OUT_DIR. Prints "ok" and exits 0 when everything holds.
"""
import http.cookiejar
import json
import os
import signal
import sys
import time
import urllib.error
import urllib.request

from web_driver import Browser, Hub, WebServer, check, wait_for

runtime, database, key_file, hearth_web, out = sys.argv[1:6]
os.makedirs(out, exist_ok=True)

hub = Hub(runtime, key_file, "webtest")
hub.register("webnotes", "CREATE TABLE webnotes (id INTEGER PRIMARY KEY, title TEXT, body TEXT)")
hub.write("INSERT INTO webnotes (title, body) VALUES ('first', 'a note')")

server = WebServer(hearth_web, database, runtime)
server.start()
base = server.base

# Nothing without the cookie: pages send the browser to the login, the rest say 401.
def status(path, headers=None):
    request = urllib.request.Request(base + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers)

code, headers = status("/hub.json")
check(code == 401, f"/hub.json without the cookie: {code}")
check("default-src 'none'" in headers.get("Content-Security-Policy", ""), headers)
code, _ = status("/", {"Host": "evil.example:80"})
check(code == 403, f"a foreign Host: {code}")
code, _ = status("/", {"Origin": "http://evil.example"})
check(code == 403, f"a foreign Origin: {code}")
code, _ = status("/login?token=" + "0" * 64)
check(code == 403, f"a wrong token: {code}")
# Requests past the limits are refused, and the server goes on.
try:
    with urllib.request.urlopen(urllib.request.Request(
            base + "/login", data=b"token=" + b"0" * 20000, method="POST"), timeout=5) as response:
        code = response.status
except urllib.error.HTTPError as error:
    code = error.code
check(code == 413, f"a 20 KB body: {code}")
code, _ = status("/", {"X-Padding": "x" * 40000})
check(400 <= code < 500, f"40 KB of headers: {code}")
code, _ = status("/hub.json")
check(code == 401, f"still serving: {code}")

browser = Browser(out)
try:
    driver = browser.driver
    # Log in through the form, as a person pasting the token would.
    driver.get(base + "/tables/webnotes")
    wait_for(lambda: "/login" in driver.current_url, "the login page")
    field = driver.find_element("name", "token")
    field.send_keys(server.token)
    field.submit()
    wait_for(lambda: driver.current_url.endswith("/tables/webnotes"), "back at the table after login")
    browser.wait_live()
    check(driver.find_element("tag name", "h1").text == "webnotes", "the table's page")

    # A commit by another plugin appears on the open page.
    title = "<script>window.pwned = 1</script><b>bold</b> & done"
    seq = hub.write("INSERT INTO webnotes (title, body) VALUES (?, 'from the writer')", [title])
    wait_for(lambda: driver.execute_script(
        "return [...document.querySelectorAll('#rows tr')].some("
        "r => [...r.cells].some(c => c.textContent === arguments[0]))", title),
        "the new row on the open page")
    check(driver.execute_script("return window.pwned") is None, "the title's script did not run")
    check(driver.execute_script("return document.querySelectorAll('#rows b').length") == 0,
          "the title's markup is text")
    browser.shot("table")
    key = driver.execute_script(
        "return [...document.querySelectorAll('#rows tr')].find("
        "r => [...r.cells].some(c => c.textContent === arguments[0])).dataset.key", title)
    # The same title rendered by the server, after a reload.
    driver.refresh()
    browser.wait_live()
    check(driver.execute_script("return window.pwned") is None, "no script after a reload")
    check(title in driver.find_element("id", "rows").text, "the server renders it as text")

    # The feed: commits made while the server was down all appear once it is back.
    driver.get(base + "/feed")
    browser.wait_live()
    first = hub.write("INSERT INTO webnotes (title) VALUES ('before the restart')")
    wait_for(lambda: browser.feed_count(first) == 1, "a commit on the live feed")
    server.stop()
    wait_for(lambda: "reconnecting" in driver.find_element("id", "live").text, "the page sees it")
    during = [hub.write("INSERT INTO webnotes (title) VALUES (?)", [f"while down {i}"])
              for i in range(20)]
    server.start()
    after = [hub.write("INSERT INTO webnotes (title) VALUES (?)", [f"after {i}"]) for i in range(10)]
    every = [first] + during + after
    wait_for(lambda: all(browser.feed_count(s) >= 1 for s in every),
             "every commit of the restart on the feed", timeout=20)
    twice = [s for s in every if browser.feed_count(s) != 1]
    check(not twice, f"commits shown more than once: {twice}")
    browser.shot("feed")

    driver.get(base + "/")
    browser.wait_live()
    check("up" in driver.find_element("css selector", "table.facts").text, "the hub is up")
    hub.write("INSERT INTO webnotes (title) VALUES ('seen on the hub page')")
    last = hub.last_seq
    wait_for(lambda: driver.find_element("id", "seq").text == str(last), "the hub page's sequence")
    browser.shot("hub")
    driver.get(base + "/tables")
    browser.shot("tables")
    driver.get(base + "/tables/webnotes/" + key)
    check(title in driver.find_element("css selector", "table.facts").text, "the row's page")
    browser.shot("row")
finally:
    browser.close()

try:
    # A page too far behind (more than 5,000 commits) is told to reload from here, not sent
    # every commit, nor dropped without a word.
    for i in range(5001):
        hub.write("INSERT INTO webnotes (title) VALUES (?)", [f"bulk {i}"])
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(base + "/login?token=" + server.token, timeout=10).read()
    stream = opener.open(base + f"/events?since={first - 1}", timeout=10)
    lines = []
    while len(lines) < 5 or lines[-1] != "":
        lines.append(stream.readline().decode().rstrip("\n"))
        if lines[-1] == "" and any(l.startswith("event:") for l in lines):
            break
    stream.close()
    check("event: reload" in lines and f"id: {hub.last_seq}" in lines,
          f"a page 5,000 commits behind is told to reload at {hub.last_seq}: {lines}")
finally:
    server.stop()
print("ok")
