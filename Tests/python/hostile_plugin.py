#!/usr/bin/python3
"""A hostile plugin: its own process, its own key (issued to "mallory"), no secret of the
victim ("notes"). It tries to act as the victim and prints, as one JSON object, what the hub
answered each attempt (the reply's type or error code, or "no answer").

usage: hostile_plugin.py RUNTIME_DIR KEY_FILE PHASE [ARG]
  PHASE open TXN: while the victim's transaction TXN is open — continue it, write, register
                  (with and without a migration) and save a cursor as the victim;
  PHASE closed TCP: register itself, write the victim's table as itself, connect over tcp
                  (TCP, the hub's request endpoint) with its own key and with an unknown one.
"""
import json
import sys

import zmq

from hearth_keys import hub_key, key_pair

runtime, key_file, phase = sys.argv[1], sys.argv[2], sys.argv[3]
argument = sys.argv[4] if len(sys.argv) > 4 else None
context = zmq.Context()


def connect(endpoint, keys):
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.curve_serverkey = hub_key(runtime)
    socket.curve_publickey, socket.curve_secretkey = keys
    socket.connect(endpoint)
    return socket


def ask(socket, message, wait=5000):
    socket.send(json.dumps(dict(message, v=1)).encode())
    if not socket.poll(wait):
        return "no answer"
    reply = json.loads(socket.recv())
    return reply.get("code", reply["type"])


mine = connect(f"ipc://{runtime}/hub.sock", key_pair(key_file))
results = {}
if phase == "open":
    results["continue-victim-transaction"] = ask(mine, {
        "type": "transaction", "id": argument, "plugin": "notes", "part": 1, "end": "commit",
        "statements": [{"sql": "DELETE FROM notes"}]})
    results["write-as-victim"] = ask(mine, {
        "type": "transaction", "id": "m1", "plugin": "notes", "part": 0, "end": "commit",
        "statements": [{"sql": "UPDATE notes SET text = 'owned'"}]})
    results["register-as-victim"] = ask(mine, {
        "type": "register", "id": "m2", "plugin": "notes", "version": "1", "tables": ["notes"],
        "migrations": []})
    results["register-as-victim-with-migration"] = ask(mine, {
        "type": "register", "id": "m3", "plugin": "notes", "version": "2", "tables": ["notes"],
        "migrations": [{"id": "evil", "sql": "DROP TABLE notes"}]})
    results["cursor-as-victim"] = ask(mine, {"type": "cursor", "id": "m4", "plugin": "notes", "seq": 0})
else:
    results["register-self"] = ask(mine, {
        "type": "register", "id": "m5", "plugin": "mallory", "version": "1",
        "tables": ["mallory_rows"], "migrations": [{"id": "1", "sql": "CREATE TABLE mallory_rows (x)"}]})
    results["write-victim-table"] = ask(mine, {
        "type": "transaction", "id": "m6", "plugin": "mallory", "part": 0, "end": "commit",
        "statements": [{"sql": "INSERT INTO notes (text) VALUES ('planted')"}]})
    results["claim-victim-table"] = ask(mine, {
        "type": "register", "id": "m7", "plugin": "mallory", "version": "2",
        "tables": ["mallory_rows", "notes"], "migrations": []})
    results["tcp-own-key"] = ask(connect(argument, key_pair(key_file)), {"type": "hello", "id": "m8"})
    results["tcp-unknown-key"] = ask(
        connect(argument, zmq.curve_keypair()), {"type": "hello", "id": "m9"}, wait=1000)
print(json.dumps(results, sort_keys=True))
