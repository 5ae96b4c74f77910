#!/usr/bin/python3
"""The reminders' CalDAV bridge against real clients: Debian's python3-caldav and vdirsyncer.

usage: caldav_clients_test.py HEARTH_REMINDERS HEARTH OUT_DIR
(the hub's HEARTH_DATABASE and HEARTH_RUNTIME_DIR in the environment)

Starts `hearth-reminders caldav` on a free loopback port and checks:
- no answer without an app password, or with a wrong one;
- python3-caldav: discovery from the server's root (current-user-principal,
  calendar-home-set), the calendars, calendar-query with and without completed tasks,
  multiget, sync tokens (a change and a deletion made by hearth-reminders are what the next
  sync reports, nothing else), a task with an alarm and properties Hearth does not model
  keeping them through a change made in Hearth, a stale PUT refused (412), MKCALENDAR;
- vdirsyncer syncing a local directory both ways: create, edit, complete and delete on
  each side, and a conflict, each reaching the other side; a change made through
  vdirsyncer is on the hub's bus.
Prints "ok" and exits 0 when everything holds.
"""
import base64
import json
import queue
import threading
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid

import caldav

from vdirsyncer_pair import Pair

reminders_bin, hearth_bin, out = sys.argv[1:4]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")


def reminders(*arguments):
    done = subprocess.run([reminders_bin, *arguments, "--json"], capture_output=True, text=True,
                          timeout=60)
    check(done.returncode == 0, f"hearth-reminders {' '.join(arguments)}: {done.stderr}")
    return json.loads(done.stdout) if done.stdout.strip() else None


def shown():
    """Every reminder, by title."""
    return {r["reminder"]["title"]: r for r in reminders("show", "--all")}


home = reminders("list-add", "Home")
home_id = home["id"]
milk = reminders("add", "Buy milk", "--list", "Home", "--tag", "errands")
milk_id = milk["reminder"]["id"]
password = reminders("caldav-password", "add", "phone")["password"]

probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
server = subprocess.Popen([reminders_bin, "caldav", "--port", str(port)], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
bus = subprocess.Popen([hearth_bin, "subscribe", "reminders"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
events = queue.Queue()
threading.Thread(target=lambda: [events.put(json.loads(l)) for l in bus.stdout], daemon=True).start()
try:
    line = server.stdout.readline()
    check("CalDAV at http://127.0.0.1:" in line, f"the server's first line: {line!r}")
    root = f"http://127.0.0.1:{port}/"

    def raw(method, path, body=None, headers=None, user="phone", secret=password):
        request = urllib.request.Request(root.rstrip("/") + path, data=body, method=method,
                                         headers=dict(headers or {}))
        if user is not None:
            token = base64.b64encode(f"{user}:{secret}".encode()).decode()
            request.add_header("Authorization", "Basic " + token)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()

    # Nothing without an app password.
    check(raw("PROPFIND", "/dav/", user=None)[0] == 401, "no password: 401")
    check(raw("PROPFIND", "/dav/", secret="wrong")[0] == 401, "a wrong password: 401")
    check(raw("PROPFIND", "/dav/", user="nobody")[0] == 401, "an unknown client: 401")

    # python3-caldav: discovery from the root.
    client = caldav.DAVClient(url=root, username="phone", password=password)
    principal = client.principal()
    calendars = {c.name: c for c in principal.calendars()}
    check(set(calendars) == {"Home"}, f"the calendars: {list(calendars)}")
    home_calendar = calendars["Home"]
    todos = home_calendar.todos(include_completed=True)
    check(len(todos) == 1, f"one task: {len(todos)}")
    text = todos[0].data
    for expected in ["SUMMARY:Buy milk", "CATEGORIES:errands", f"UID:{milk_id}",
                     "STATUS:NEEDS-ACTION"]:
        check(expected in text, f"{expected} in {text}")

    # Sync tokens: what hearth-reminders changes is what the next sync reports.
    synced = home_calendar.objects_by_sync_token(load_objects=False)
    token = synced.sync_token
    check(len(list(synced)) == 1, "the first sync lists the task")
    reminders("edit", milk_id[:8], "--title", "Buy oat milk")
    bread = reminders("add", "Buy bread", "--list", "Home")["reminder"]["id"]
    changed = home_calendar.objects_by_sync_token(sync_token=token, load_objects=True)
    titles = sorted(o.icalendar_component["SUMMARY"] for o in changed)
    check(titles == ["Buy bread", "Buy oat milk"], f"changed since the token: {titles}")
    check(changed.sync_token != token, "a new token")
    token = changed.sync_token
    reminders("delete", bread[:8])
    status, _, body = raw("REPORT", f"/dav/calendars/{home_id}/", body=f"""<?xml version="1.0"?>
        <d:sync-collection xmlns:d="DAV:"><d:sync-token>{token}</d:sync-token>
        <d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>""".encode(),
        headers={"Content-Type": "application/xml"})
    check(status == 207 and f"{bread}.ics" in body and "404 Not Found" in body,
          f"the deletion in the next sync: {body}")
    check(body.count("<d:response>") == 1, f"only the deletion: {body}")
    status, _, body = raw("REPORT", f"/dav/calendars/{home_id}/", body=b"""<?xml version="1.0"?>
        <d:sync-collection xmlns:d="DAV:"><d:sync-token>http://hearth.invalid/sync/x</d:sync-token>
        <d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>""",
        headers={"Content-Type": "application/xml"})
    check(status == 403 and "valid-sync-token" in body, f"a bad token: {status} {body}")

    # Completed tasks: hidden unless asked for.
    reminders("complete", milk_id[:8], "--now")
    check(home_calendar.todos() == [], "no open task once it is completed")
    done = home_calendar.todos(include_completed=True)
    check(len(done) == 1 and "STATUS:COMPLETED" in done[0].data, "the completed task")

    # What Hearth does not model survives, even a change made in Hearth.
    alarm_uid = str(uuid.uuid4())
    ical = f"""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//caldav//EN
BEGIN:VTODO
UID:{alarm_uid}
DTSTAMP:20261201T120000Z
SUMMARY:Dentist
DUE;TZID=Europe/Berlin:20270110T090000
PRIORITY:5
X-CLIENT-COLOUR:teal
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Dentist soon
TRIGGER:-PT30M
END:VALARM
END:VTODO
END:VCALENDAR
"""
    home_calendar.save_todo(ical)
    dentist = shown()["Dentist"]
    check(dentist["reminder"]["priority"] == "medium", f"PRIORITY:5 is medium: {dentist}")
    check(dentist["reminder"]["dueDate"].startswith("2027-01-10T08:00"), f"the due time: {dentist}")
    reminders("edit", dentist["reminder"]["id"][:8], "--title", "Dentist at 9")
    fetched = home_calendar.todo_by_uid(alarm_uid).data
    for expected in ["BEGIN:VALARM", "TRIGGER:-PT30M", "X-CLIENT-COLOUR:teal",
                     "SUMMARY:Dentist at 9", "DUE;TZID=Europe/Berlin:20270110T090000"]:
        check(expected in fetched, f"{expected} kept in {fetched}")

    # A stale write is refused, never merged.
    href = f"/dav/calendars/{home_id}/{dentist['reminder']['id']}.ics"
    status, headers, _ = raw("GET", href)
    etag = headers["ETag"]
    reminders("edit", dentist["reminder"]["id"][:8], "--title", "Dentist moved")
    status, _, _ = raw("PUT", href, body=fetched.encode(),
                       headers={"If-Match": etag, "Content-Type": "text/calendar"})
    check(status == 412, f"a PUT with a stale ETag: {status}")
    check("Dentist moved" in shown(), "the stale PUT changed nothing")
    status, headers, _ = raw("GET", href)
    status, _, _ = raw("PUT", href, body=fetched.replace("Dentist at 9", "Dentist again").encode(),
                       headers={"If-Match": headers["ETag"], "Content-Type": "text/calendar"})
    check(status == 204 and "Dentist again" in shown(), f"a PUT with the current ETag: {status}")
    status, _, _ = raw("PUT", href, body=fetched.encode(),
                       headers={"If-None-Match": "*", "Content-Type": "text/calendar"})
    check(status == 412, f"If-None-Match: * on an existing task: {status}")
    status, _, _ = raw("PUT", f"/dav/calendars/{home_id}/bad.ics", body=b"not a calendar",
                       headers={"Content-Type": "text/calendar"})
    check(status == 400, f"a body that is not iCalendar: {status}")

    # MKCALENDAR makes a list.
    work = principal.make_calendar(name="Work", cal_id="work")
    work.save_todo(summary="Quarterly report")
    lists = {entry["list"]["title"] for entry in reminders("lists")}
    check("Work" in lists, f"the new list: {lists}")
    check(shown()["Quarterly report"]["listTitle"] == "Work", "its task in it")

    # vdirsyncer, both ways, with a local directory.
    pair = Pair(os.path.join(out, "vdirsyncer"), f"{root}dav/calendars/{home_id}/", "phone",
                password, "a")
    local = pair.local

    def vdirsyncer(*arguments):
        done = pair.run(*arguments)
        check(done.returncode == 0, f"vdirsyncer {' '.join(arguments)}: {done.stdout}{done.stderr}")

    def local_items():
        items = {}
        for name in os.listdir(local):
            text = open(os.path.join(local, name)).read()
            summary = [l for l in text.splitlines() if l.startswith("SUMMARY:")]
            items[summary[0][8:] if summary else name] = (name, text)
        return items

    vdirsyncer("discover")
    vdirsyncer("sync")
    check(set(local_items()) == {"Buy oat milk", "Dentist again"}, f"pulled: {set(local_items())}")

    # Made on the local side.
    status_now = subprocess.run([hearth_bin, "status", "--json"], capture_output=True, text=True)
    before = json.loads(status_now.stdout)["seq"]
    with open(os.path.join(local, "walk.ics"), "w") as file:
        file.write("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\nBEGIN:VTODO\n"
                   "UID:walk-the-dog@example\nSUMMARY:Walk the dog\nCATEGORIES:family\n"
                   "END:VTODO\nEND:VCALENDAR\n")
    vdirsyncer("sync")
    walk = shown().get("Walk the dog")
    check(walk is not None and walk["tags"] == ["family"], f"the local task in Hearth: {walk}")
    # ...and on the bus.
    seen = False
    deadline = time.time() + 10
    while not seen and time.time() < deadline:
        try:
            event = events.get(timeout=max(0.01, deadline - time.time()))
        except queue.Empty:
            break
        seen = (event["seq"] > before and event["plugin"] == "reminders"
                and bool(event["tables"].get("reminders", {}).get("inserted")))
    check(seen, "the change made through vdirsyncer is on the bus")

    # Edited in Hearth, pulled.
    reminders("edit", walk["reminder"]["id"][:8], "--title", "Walk the dog twice")
    vdirsyncer("sync")
    check("Walk the dog twice" in local_items(), f"Hearth's edit pulled: {set(local_items())}")

    # Completed locally, pushed.
    name, text = local_items()["Walk the dog twice"]
    with open(os.path.join(local, name), "w") as file:
        file.write(text.replace("STATUS:NEEDS-ACTION", "STATUS:COMPLETED"))
    vdirsyncer("sync")
    check(shown()["Walk the dog twice"]["reminder"]["status"] == "completed", "completed locally")

    # A conflict: both sides change the same task; the local side wins, as configured.
    name, text = local_items()["Buy oat milk"]
    reminders("edit", milk_id[:8], "--title", "Buy milk (Hearth)")
    with open(os.path.join(local, name), "w") as file:
        file.write(text.replace("SUMMARY:Buy oat milk", "SUMMARY:Buy milk (local)"))
    vdirsyncer("sync")
    titles = set(shown())
    check("Buy milk (local)" in titles and "Buy milk (Hearth)" not in titles, f"a wins: {titles}")

    # Deleted on each side.
    name, _ = local_items()["Walk the dog twice"]
    os.remove(os.path.join(local, name))
    vdirsyncer("sync")
    check("Walk the dog twice" not in shown(), "deleted locally, gone from Hearth")
    reminders("delete", shown()["Dentist again"]["reminder"]["id"][:8])
    vdirsyncer("sync")
    check(set(local_items()) == {"Buy milk (local)"}, f"deleted in Hearth: {set(local_items())}")
finally:
    for process in (server, bus):
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
check(server.returncode == 0, f"the CalDAV server stopped cleanly: {server.returncode}")
print("ok")
