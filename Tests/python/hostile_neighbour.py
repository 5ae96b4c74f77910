#!/usr/bin/python3
"""A hostile local process beside a running hearthd, written from Protocols/README.md alone.

usage: hostile_neighbour.py RUNTIME_DIR DATABASE ATTACK SECONDS [N] [KEY_FILE]

Runs one attack for SECONDS, prints `attacking` once it is under way and `done <what it
held>` at the end; `hearth-faults hostile` runs each beside a real hub while an honest
plugin writes. The attacks:

  idle-ipc N        N unix connections to hub.sock that never start ZeroMQ's handshake,
                    each reopened as soon as the hub closes it
  idle-stream N     the same on hub.stream
  stream-auth N     N request-stream connections of one fresh key, handshaken, held idle
  zmq-auth N        N CURVE connections to hub.sock of one fresh key, held idle
  flood-stream N    one connection of a fresh key sends N `changes` requests (the whole
                    feed each) and never reads
  flood-zmq N       the same on hub.sock
  unread-replies N  N stream connections of the plugin whose key is KEY_FILE, each sending
                    16 transactions that return 3 MB (`SELECT randomblob(3000000)`), never
                    reading
  shm-lock          a shared lock on byte 120 of the database's -shm (SQLite's WAL write
                    lock), the file opened read-only, as a plugin that reads the database can
  lock-files        an exclusive flock on every file of the database's directory and of the
                    runtime directory that a plugin could open (its keys directory aside)
"""
import fcntl
import json
import os
import resource
import select
import socket
import sys
import time

import zmq

from hearth_keys import hub_key, key_pair
from hearth_stream import open_stream, read_frame, send_frame

runtime, database, attack, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
count = int(sys.argv[5]) if len(sys.argv) > 5 else 0
key_file = sys.argv[6] if len(sys.argv) > 6 else None
end = time.monotonic() + seconds
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def say(line):
    print(line, flush=True)


def raw(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        sock.connect(path)
    except (BlockingIOError, InterruptedError):
        pass
    except OSError:
        sock.close()
        return None
    return sock


def hold_idle(path):
    """Keeps `count` connections open to `path`, reopening each the hub closes."""
    held, reopened = set(), 0
    while len(held) < count:
        sock = raw(path)
        if sock is None:
            break
        held.add(sock)
    say("attacking")
    poller = select.epoll()
    for sock in held:
        poller.register(sock, select.EPOLLIN | select.EPOLLRDHUP)
    by_fd = {sock.fileno(): sock for sock in held}
    most = len(held)
    while time.monotonic() < end:
        for fd, events in poller.poll(0.1):
            sock = by_fd[fd]
            if not events & (select.EPOLLRDHUP | select.EPOLLHUP | select.EPOLLERR):
                try:
                    if sock.recv(4096):
                        continue  # the hub's greeting: read, never answered
                except BlockingIOError:
                    continue
                except OSError:
                    pass
            del by_fd[fd]
            poller.unregister(fd)
            sock.close()
            again = raw(path)
            if again is not None:
                reopened += 1
                by_fd[again.fileno()] = again
                poller.register(again, select.EPOLLIN | select.EPOLLRDHUP)
        most = max(most, len(by_fd))
    say(f"done held {most} at most, reopened {reopened} the hub closed")


def fresh_keys():
    public, secret = zmq.curve_keypair()
    return public, secret


def stream_connections(keys, number):
    """Up to `number` handshaken streams as `keys`; those the hub refuses are counted."""
    opened, refused = [], 0
    for _ in range(number):
        try:
            sock = open_stream(runtime, *keys, timeout=5)
        except (OSError, ValueError, EOFError):
            refused += 1
            continue
        opened.append(sock)
    return opened, refused


def zmq_connection(context, keys):
    sock = context.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SNDHWM, 0)
    sock.curve_serverkey = hub_key(runtime)
    sock.curve_publickey, sock.curve_secretkey = keys
    sock.connect(f"ipc://{runtime}/hub.sock")
    return sock


def wait_out():
    while time.monotonic() < end:
        time.sleep(0.05)


def changes(index):
    return json.dumps({"v": 1, "type": "changes", "id": f"c{index}", "since": 0}).encode()


if attack == "idle-ipc":
    hold_idle(f"{runtime}/hub.sock")
elif attack == "idle-stream":
    hold_idle(f"{runtime}/hub.stream")
elif attack == "stream-auth":
    opened, refused = stream_connections(fresh_keys(), count)
    say("attacking")
    time.sleep(0.5)
    # A refused connection gets its `busy` and is closed: count those still open.
    poller = select.poll()
    for sock in opened:
        poller.register(sock, select.POLLIN)
    closed = {fd for fd, _ in poller.poll(0)}
    alive = [s for s in opened if s.fileno() not in closed]
    wait_out()
    say(f"done {len(alive)} held open of {count}, {refused + len(opened) - len(alive)} refused")
elif attack == "zmq-auth":
    context = zmq.Context()
    context.set(zmq.MAX_SOCKETS, count + 16)
    keys = fresh_keys()
    sockets = [zmq_connection(context, keys) for _ in range(count)]
    say("attacking")
    wait_out()
    say(f"done {len(sockets)} connections held")
    context.destroy(linger=0)
elif attack == "flood-stream":
    sock = stream_connections(fresh_keys(), 1)[0][0]
    sock.setblocking(False)
    sent = 0
    say("attacking")
    for index in range(count):
        try:
            send_frame(sock, changes(index))
            sent += 1
        except (BlockingIOError, OSError):
            break
    wait_out()
    say(f"done {sent} requests sent, none read")
elif attack == "flood-zmq":
    context = zmq.Context()
    sock = zmq_connection(context, fresh_keys())
    for index in range(count):
        sock.send(changes(index))
    say("attacking")
    wait_out()
    say(f"done {count} requests sent, none read")
    context.destroy(linger=0)
elif attack == "unread-replies":
    keys = key_pair(key_file)
    plugin = os.path.basename(key_file).rsplit(".", 1)[0]
    opened, refused = stream_connections(keys, count)
    # The plugin registers (no tables): its transactions may then run.
    if opened:
        send_frame(opened[0], json.dumps({"v": 1, "type": "register", "id": "r", "plugin": plugin,
                                          "version": "1", "tables": [], "migrations": []}).encode())
        registered = json.loads(read_frame(opened[0]))
        if registered["type"] != "registered":
            raise SystemExit(f"cannot register {plugin}: {registered}")
    sent = 0
    say("attacking")
    for sock in opened:
        sock.setblocking(False)
        for index in range(16):
            request = {"v": 1, "type": "transaction", "id": f"b{sent}", "plugin": plugin,
                       "part": 0, "end": "commit",
                       "statements": [{"sql": "SELECT randomblob(3000000)", "rows": True}]}
            try:
                send_frame(sock, json.dumps(request).encode())
                sent += 1
            except (BlockingIOError, OSError):
                break
    wait_out()
    # What the first connection was answered, to show the replies were the 3 MB ones.
    first = "nothing"
    if opened:
        opened[0].setblocking(True)
        opened[0].settimeout(2)
        try:
            reply = json.loads(read_frame(opened[0]))
            first = reply.get("code") or f"{reply['type']} of {len(json.dumps(reply)) >> 20} MB"
        except (OSError, EOFError, ValueError) as error:
            first = f"no reply ({type(error).__name__})"
    say(f"done {sent} requests for {sent * 3} MB of replies on {len(opened)} connections, "
        f"none read; {refused} connections refused; the first reply: {first}")
elif attack == "shm-lock":
    fd = os.open(database + "-shm", os.O_RDONLY)
    fcntl.lockf(fd, fcntl.LOCK_SH, 1, 120)
    say(f"attacking {os.getpid()}")
    wait_out()
    fcntl.lockf(fd, fcntl.LOCK_UN, 1, 120)
    say("done held the WAL write lock")
elif attack == "lock-files":
    locked = []
    for directory in [os.path.dirname(database), runtime]:
        for name in os.listdir(directory):
            path = os.path.join(directory, name)
            if not os.path.isfile(path):
                continue
            fd = os.open(path, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked.append(name)
            except OSError:
                os.close(fd)
    say(f"attacking: locked {', '.join(sorted(locked))}")
    wait_out()
    say(f"done locked {', '.join(sorted(locked))}")
else:
    raise SystemExit(f"no attack named {attack}")
