#!/usr/bin/python3
"""Talks to a running hearthd with pyzmq only, from Protocols/README.md.

usage: hub_protocol_test.py RUNTIME_DIR KEY_FILE
Authenticates with CURVE as plugin "py" (the key pair in KEY_FILE, issued by the hub's
owner) and with a key of no plugin (a reader), registers a plugin, writes (one-message and interactive transactions), checks the values
come back losslessly, resends a transaction (exactly once), follows the bus, catches up
with `changes`, and checks typed errors. Exits 0 when everything holds.
"""
import base64
import json
import os
import socket
import struct
import sys
import time
import uuid

import zmq
import zmq.utils.z85

from hearth_keys import hub_key, key_pair
import hearth_stream
from hearth_stream import read_frame, send_frame

runtime, key_file = sys.argv[1], sys.argv[2]
context = zmq.Context()


def connect_requests(public, secret):
    """A DEALER on the hub's request socket, a CURVE client with the hub's published key."""
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.curve_serverkey = hub_key(runtime)
    socket.curve_publickey = public
    socket.curve_secretkey = secret
    socket.connect(f"ipc://{runtime}/hub.sock")
    return socket


requests = connect_requests(*key_pair(key_file))
bus = context.socket(zmq.SUB)
bus.setsockopt(zmq.LINGER, 0)
bus.setsockopt(zmq.SUBSCRIBE, b"commit")
bus.setsockopt(zmq.SUBSCRIBE, b"heartbeat")
bus.connect(f"ipc://{runtime}/bus.sock")


def request(message):
    message = dict(message, v=1)
    requests.send(json.dumps(message).encode())
    if not requests.poll(5000):
        raise SystemExit(f"no reply to {message['type']}")
    reply = json.loads(requests.recv())
    assert reply["v"] == 1, reply
    assert reply.get("id") == message.get("id"), (reply, message)
    return reply


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")


# hello: who is the hub, how far is its feed
welcome = request({"type": "hello", "id": "h1"})
check(welcome["type"] == "welcome" and isinstance(welcome["seq"], int), welcome)
# welcome.wal: the write-ahead log against its bound (32 MiB by default).
wal = welcome["wal"]
check(wal["limit"] == 32 << 20 and 0 <= wal["bytes"] <= wal["peakBytes"], wal)
check(wal["restarts"] >= 0 and wal["incompleteRestarts"] >= 0, wal)
# welcome.limits: what the hub takes (a frame past transportMaxMessageSize is dropped by the
# transport unanswered, so a client checks its frames against these first).
limits = welcome["limits"]
check(limits == {"maxMessageSize": 4 << 20, "transportMaxMessageSize": 16 << 20,
                 "maxStatements": 10000}, limits)
# A frame over the limit is not read: its error has no id.
requests.send(json.dumps({"v": 1, "type": "hello", "id": "big",
                          "plugin": "x" * (limits["maxMessageSize"] + 1)}).encode())
check(requests.poll(5000), "an answer to a frame over the limit")
over = json.loads(requests.recv())
check(over["type"] == "error" and over["code"] == "tooLarge" and "id" not in over, over)
# A frame of exactly transportMaxMessageSize still gets its answer (CURVE's 33 bytes on the
# wire are the hub's to allow for); one byte more is dropped with the connection, unanswered.
requests.send(b" " * limits["transportMaxMessageSize"])
check(requests.poll(5000), "an answer to a frame of exactly transportMaxMessageSize")
check(json.loads(requests.recv())["code"] == "tooLarge", "tooLarge for it")
dropped = connect_requests(*key_pair(key_file))
dropped.send(b" " * (limits["transportMaxMessageSize"] + 1))
check(not dropped.poll(1000), "no answer to a frame past transportMaxMessageSize")
dropped.close()

# The bus: wait for a heartbeat, so the subscription is in place (the slow joiner).
deadline = time.time() + 5
while time.time() < deadline:
    if bus.poll(500):
        topic, body = bus.recv_multipart()
        if topic == b"heartbeat":
            check(json.loads(body)["hub"] == welcome["hub"], "heartbeat names the hub")
            break
else:
    raise SystemExit("no heartbeat on the bus")

# Without CURVE the hub does not answer at all; with a key of no plugin it answers reads
# and refuses to let it act as a plugin.
plain = context.socket(zmq.DEALER)
plain.setsockopt(zmq.LINGER, 0)
plain.connect(f"ipc://{runtime}/hub.sock")
plain.send(json.dumps({"v": 1, "type": "hello", "id": "plain"}).encode())
check(not plain.poll(500), "a connection without CURVE gets no answer")
anonymous = connect_requests(*zmq.curve_keypair())
anonymous.send(json.dumps({"v": 1, "type": "hello", "id": "a1"}).encode())
check(anonymous.poll(5000) and json.loads(anonymous.recv())["type"] == "welcome", "a reader's hello")
anonymous.send(json.dumps({"v": 1, "type": "register", "id": "a2", "plugin": "py", "version": "1.0",
                           "tables": ["py_notes"], "migrations": []}).encode())
check(anonymous.poll(5000) and json.loads(anonymous.recv())["code"] == "unauthorized",
      "a reader may not register as a plugin")

# register: the plugin and its migrations
registered = request({
    "type": "register", "id": "r1", "plugin": "py", "version": "1.0", "tables": ["py_notes"],
    "migrations": [{"id": "1", "sql": "CREATE TABLE py_notes (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB)"}],
})
check(registered["type"] == "registered" and registered["applied"] == ["1"], registered)
start = registered["seq"]

# A one-message transaction with every kind of value.
big = -9223372036854775808
values = [{"int": str(big)}, {"real": 0.1}, {"text": "naïve 🐦"}, {"blob": base64.b64encode(bytes(range(256))).decode()}]
committed = request({
    "type": "transaction", "id": "t1", "plugin": "py", "part": 0, "end": "commit",
    "statements": [{"sql": "INSERT INTO py_notes (i, r, t, b) VALUES (?, ?, ?, ?)", "args": values},
                   {"sql": "INSERT INTO py_notes (i, r, t, b) VALUES (?, ?, ?, ?)", "args": [None, None, None, None]}],
})
check(committed["type"] == "committed" and committed["seq"] == start + 1, committed)

# Exactly once: the same id again gets the first reply, marked duplicate.
again = request({
    "type": "transaction", "id": "t1", "plugin": "py", "part": 0, "end": "commit",
    "statements": [{"sql": "INSERT INTO py_notes (t) VALUES ('twice?')"}],
})
check(again.get("duplicate") is True and again["seq"] == committed["seq"], again)

# An interactive transaction: read inside it, then commit.
txn = str(uuid.uuid4())
results = request({
    "type": "transaction", "id": txn, "plugin": "py", "part": 0,
    "statements": [{"sql": "SELECT i, r, t, b FROM py_notes ORDER BY id", "rows": True},
                   {"sql": "INSERT INTO py_notes (t) VALUES (?) RETURNING id", "args": [{"text": "third"}], "rows": True}],
})
check(results["type"] == "results", results)
rows = results["results"][0]["rows"]
check(rows[0] == values, f"values came back as sent: {rows[0]}")
check(rows[1] == [None, None, None, None], rows[1])
check(results["results"][1]["rows"] == [[{"int": "3"}]], results["results"][1])
done = request({"type": "transaction", "id": txn, "plugin": "py", "part": 1, "end": "commit",
                "statements": [{"sql": "SELECT count(*) FROM py_notes", "rows": True}]})
check(done["type"] == "committed" and done["results"][0]["rows"] == [[{"int": "3"}]], done)

# The bus carried both commits, in order.
seen = []
deadline = time.time() + 5
while len(seen) < 2 and time.time() < deadline:
    if bus.poll(500):
        topic, body = bus.recv_multipart()
        if topic == b"commit":
            event = json.loads(body)
            if event["plugin"] == "py" and event["seq"] > start:
                seen.append(event)
check([e["seq"] for e in seen] == [start + 1, start + 2], seen)
check(seen[0]["tables"]["py_notes"]["inserted"] == [1, 2], seen[0])

# A late subscriber catches up from the feed.
changes = request({"type": "changes", "id": "c1", "since": start})
check([c["seq"] for c in changes["commits"]] == [start + 1, start + 2], changes)
check(changes["seq"] == start + 2 and changes["horizon"] <= start + 1, changes)

# The plugin's cursor: the hub keeps what it has not read.
saved = request({"type": "cursor", "id": "k1", "plugin": "py", "seq": start + 2})
check(saved["type"] == "cursorSaved" and saved["seq"] == start + 2, saved)
check(saved["horizon"] <= start + 1, saved)

# A big transaction, in parts: 25,000 inserts, 1,000 a message, then the end. One commit,
# one sequence number; past 10,000 rows the event says the table changed, not which rows.
# Odd parts ask for no results ("results": "none"): their reply's results are empty.
big_id = str(uuid.uuid4())
for part in range(25):
    message = {
        "type": "transaction", "id": big_id, "plugin": "py", "part": part,
        "statements": [{"sql": "INSERT INTO py_notes (t) VALUES (?)", "args": [{"text": f"bulk {part}.{i}"}]}
                       for i in range(1000)],
    }
    if part % 2:
        message["results"] = "none"
    reply = request(message)
    check(reply["type"] == "results" and len(reply["results"]) == (0 if part % 2 else 1000), reply.get("code"))
bulk = request({"type": "transaction", "id": big_id, "plugin": "py", "part": 25, "end": "commit",
                "statements": [{"sql": "SELECT count(*) FROM py_notes WHERE t LIKE 'bulk %'", "rows": True}]})
check(bulk["type"] == "committed" and bulk["seq"] == start + 3, bulk)
check(bulk["results"][0]["rows"] == [[{"int": "25000"}]], bulk["results"])
event = request({"type": "changes", "id": "c2", "since": start + 2})["commits"][0]
check(event["seq"] == start + 3 and event["tables"]["py_notes"]["unknownRows"] is True, event)
check(event["tables"]["py_notes"]["inserted"] == [], event)

# A rolled-back transaction answers committed, rolledBack, with the current sequence number.
rollback_id = str(uuid.uuid4())
request({"type": "transaction", "id": rollback_id, "plugin": "py", "part": 0,
         "statements": [{"sql": "INSERT INTO py_notes (t) VALUES ('undone')"}]})
undone = request({"type": "transaction", "id": rollback_id, "plugin": "py", "part": 1, "end": "rollback",
                  "statements": []})
check(undone.get("rolledBack") is True and undone["seq"] == start + 3, undone)

# Fields outside their stated ranges are malformed.
check(request({"type": "changes", "id": "m1", "since": 0, "limit": 0})["code"] == "malformed", "limit 0")
check(request({"type": "changes", "id": "m2", "since": 0, "limit": 10001})["code"] == "malformed", "limit 10001")
check(request({"type": "changes", "id": "m3", "since": -1})["code"] == "malformed", "since -1")
check(request({"type": "transaction", "id": "m4", "plugin": "py", "part": -1,
               "statements": []})["code"] == "malformed", "part -1")
check(request({"type": "transaction", "id": "m5", "plugin": "py", "part": 0, "end": "commit",
               "results": "few", "statements": []})["code"] == "malformed", "results few")

# Typed errors.
check(request({"type": "transaction", "id": "x1", "plugin": "py", "part": 0, "end": "commit",
               "statements": [{"sql": "DELETE FROM hearth_meta"}]})["code"] == "unauthorized", "hub tables are not writable")
check(request({"type": "transaction", "id": "x2", "plugin": "py", "part": 0, "end": "commit",
               "statements": [{"sql": "INSERT INTO nowhere VALUES (1)"}]})["code"] == "sqlite", "sqlite errors")
check(request({"type": "nonsense", "id": "x3"})["code"] == "unknownType", "unknown types")
requests.send(b"not json")
check(requests.poll(5000) and json.loads(requests.recv())["code"] == "malformed", "malformed frames")
# An update names, row by row, the columns it changed (the same value again is no change).
edit = request({"type": "transaction", "id": str(uuid.uuid4()), "plugin": "py", "part": 0, "end": "commit",
                "statements": [{"sql": "UPDATE py_notes SET t = 'edited', i = i WHERE id = 1"},
                               {"sql": "UPDATE py_notes SET r = 2.5, t = 'both' WHERE id = 2"}]})
check(edit["type"] == "committed", edit)
table = request({"type": "changes", "id": "c3", "since": edit["seq"] - 1})["commits"][0]["tables"]["py_notes"]
check(table["updated"] == [1, 2] and table["updatedColumns"] == ["r", "t"], table)
check(table["rowColumns"] == {"1": ["t"], "2": ["r", "t"]}, table)

# The request stream (Protocols/README.md, "The request stream"): the same requests over a
# bare unix socket, with Python's standard library and `cryptography` for Noise IK and its
# sealed frames. The handshake written here from the Noise specification first meets the
# published test vectors.
vectors = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors", "noise-ik.json")
check(hearth_stream.check_vectors(vectors) == 2, "the published Noise IK vectors")


def open_stream(public, secret, prove=True):
    """A handshaken stream as the key pair (Z85); with prove=False the client claims the key
    without holding its secret (see hearth_stream.open_stream)."""
    try:
        return hearth_stream.open_stream(runtime, public, secret, prove)
    except ValueError as error:
        raise SystemExit(f"FAILED: {error}")


def stream_request(sock, message):
    send_frame(sock, json.dumps(dict(message, v=1)).encode())
    reply = json.loads(read_frame(sock))
    check(reply["v"] == 1 and reply.get("id") == message.get("id"), (reply, message))
    return reply


stream = open_stream(*key_pair(key_file))
check(stream_request(stream, {"type": "hello", "id": "s1"})["type"] == "welcome", "hello on the stream")
# Two requests sent without waiting: both answered, matched by id.
written = {"type": "transaction", "id": "s2", "plugin": "py", "part": 0, "end": "commit",
           "statements": [{"sql": "INSERT INTO py_notes (t) VALUES ('by stream')"}]}
send_frame(stream, json.dumps(dict(written, v=1)).encode())
send_frame(stream, json.dumps({"v": 1, "type": "changes", "id": "s3", "since": 0, "limit": 1}).encode())
replies = {r["id"]: r for r in (json.loads(read_frame(stream)) for _ in range(2))}
check(replies["s2"]["type"] == "committed" and replies["s3"]["type"] == "changes", replies)
# The same id on the other transport: exactly once across both.
check(request(written).get("duplicate") is True, "a stream's write, resent on hub.sock, is a duplicate")
rows = stream_request(stream, {"type": "transaction", "id": "s4", "plugin": "py", "part": 0, "end": "commit",
                               "statements": [{"sql": "SELECT count(*) FROM py_notes WHERE t = 'by stream'",
                                               "rows": True}]})
check(rows["results"][0]["rows"] == [[{"int": "1"}]], rows)
# A frame past maxMessageSize: tooLarge, and the connection goes on.
over = stream_request(stream, {"type": "hello", "plugin": "x" * (limits["maxMessageSize"] + 1)})
check(over["code"] == "tooLarge", over)
check(stream_request(stream, {"type": "hello", "id": "s5"})["type"] == "welcome", "the stream goes on")
# A length past transportMaxMessageSize (and its 16-byte tag): tooLarge, then the hub closes
# the connection.
stream.sock.sendall(struct.pack(">I", limits["transportMaxMessageSize"] + 16 + 1))
closing = json.loads(read_frame(stream))
check(closing["code"] == "tooLarge" and "id" not in closing, closing)
check(stream.recv(1) == b"", "the hub closed the stream after a frame past the transport's limit")
# A key of no plugin reads and may not act as a plugin.
reader = open_stream(*zmq.curve_keypair())
check(stream_request(reader, {"type": "hello", "id": "s6"})["type"] == "welcome", "a reader's hello")
refused = stream_request(reader, dict(written, id="s7"))
check(refused["code"] == "unauthorized", refused)
# A client that claims a plugin's key without its secret: closed without a word.
liar = open_stream(*key_pair(key_file), prove=False)
check(liar.recv(1) == b"", "the hub closed the stream of a client without its key's secret")
# A frame in the clear after a real handshake (what a relay would slip in): closed.
relayed = open_stream(*key_pair(key_file))
send_frame(relayed.sock, json.dumps({"v": 1, "type": "hello", "id": "r1"}).encode())
check(relayed.recv(1) == b"", "the hub closed the stream after a frame it could not open")
# The example of Protocols/README.md ("The request stream"), run as it is written: the spec's
# own client says hello.
readme = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Protocols",
                           "README.md")).read()
example_at = readme.index("secret = zmq.utils.z85.decode(secret_z85)")
example = readme[readme.rindex("```python", 0, example_at) + len("```python"):readme.index("```", example_at)]
scope = {"secret_z85": zmq.curve_keypair()[1], "runtime": runtime}
exec(example, scope)
check(scope["welcome"]["type"] == "welcome" and scope["welcome"]["id"] == "h1", scope["welcome"])
# Not a greeting: closed without a word.
stranger = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
stranger.settimeout(5)
stranger.connect(f"{runtime}/hub.stream")
send_frame(stranger, b"GET / HTTP/1.1")
check(stranger.recv(1) == b"", "the hub closed a stream that did not greet it")
print("ok")
