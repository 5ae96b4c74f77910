"""The hub's request stream (Protocols/README.md, "The request stream") with Python's
standard library and `cryptography` for the handshake."""
import hashlib
import os
import socket
import struct

import zmq.utils.z85
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from hearth_keys import hub_key


def send_frame(sock, body):
    sock.sendall(struct.pack(">I", len(body)) + body)


def read_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise EOFError("the hub closed the connection")
        data += chunk
    return data


def read_frame(sock):
    return read_exactly(sock, struct.unpack(">I", read_exactly(sock, 4))[0])


def blake(data, key=b""):
    return hashlib.blake2b(data, digest_size=32, key=key).digest()


def open_stream(runtime, public, secret, prove=True, timeout=5):
    """A handshaken stream to the hub of `runtime` as the key pair (Z85); with prove=False
    the client's proof is wrong. Raises ValueError when the hub does not prove its key."""
    hub_public = zmq.utils.z85.decode(hub_key(runtime))
    public, secret = zmq.utils.z85.decode(public), zmq.utils.z85.decode(secret)
    shared = X25519PrivateKey.from_private_bytes(secret).exchange(
        X25519PublicKey.from_public_bytes(hub_public))
    k = blake(shared + public + hub_public)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(f"{runtime}/hub.stream")
    client_nonce = os.urandom(32)
    send_frame(sock, b"hearth/1" + public + client_nonce)
    answer = read_frame(sock)
    if len(answer) != 64:
        raise ValueError("the hub's answer is not its nonce and its proof")
    hub_nonce, proof = answer[:32], answer[32:]
    if proof != blake(b"hearth hub" + client_nonce + hub_nonce, key=k):
        raise ValueError("the hub did not prove its key")
    client_proof = blake(b"hearth client" + hub_nonce + client_nonce, key=k)
    send_frame(sock, client_proof if prove else bytes(32))
    return sock
