"""The hub's request stream (Protocols/README.md, "The request stream") with Python's
standard library and `cryptography`: Noise_IK_25519_ChaChaPoly_BLAKE2b written from the
Noise specification (revision 34), then sealed frames."""
import hashlib
import hmac
import json
import os
import socket
import struct

import zmq.utils.z85
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from hearth_keys import hub_key

PROTOCOL = b"Noise_IK_25519_ChaChaPoly_BLAKE2b"
MAGIC = b"hearth/2"


def send_frame(sock, body):
    if isinstance(sock, Stream):
        return sock.send(body)
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
    if isinstance(sock, Stream):
        return sock.read()
    return read_exactly(sock, struct.unpack(">I", read_exactly(sock, 4))[0])


def public_of(secret):
    return X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes(
        Encoding.Raw, PublicFormat.Raw)


def dh(secret, public):
    return X25519PrivateKey.from_private_bytes(secret).exchange(
        X25519PublicKey.from_public_bytes(public))


def blake(data):
    return hashlib.blake2b(data, digest_size=64).digest()


def hkdf(chaining_key, material, outputs):
    temporary = hmac.new(chaining_key, material, hashlib.blake2b).digest()
    result, previous = [], b""
    for index in range(1, outputs + 1):
        previous = hmac.new(temporary, previous + bytes([index]), hashlib.blake2b).digest()
        result.append(previous)
    return result


class Cipher:
    """A CipherState: a key (or none) and a nonce counter."""

    def __init__(self, key=None):
        self.key, self.n = key, 0

    def _nonce(self):
        return b"\0\0\0\0" + struct.pack("<Q", self.n)

    def encrypt(self, plaintext, ad=b""):
        if self.key is None:
            return plaintext
        sealed = ChaCha20Poly1305(self.key).encrypt(self._nonce(), plaintext, ad)
        self.n += 1
        return sealed

    def decrypt(self, sealed, ad=b""):
        if self.key is None:
            return sealed
        plaintext = ChaCha20Poly1305(self.key).decrypt(self._nonce(), sealed, ad)
        self.n += 1
        return plaintext


class Symmetric:
    """A SymmetricState."""

    def __init__(self, prologue):
        self.h = PROTOCOL.ljust(64, b"\0")
        self.ck = self.h
        self.cipher = Cipher()
        self.mix_hash(prologue)

    def mix_hash(self, data):
        self.h = blake(self.h + data)

    def mix_key(self, material):
        self.ck, key = hkdf(self.ck, material, 2)
        self.cipher = Cipher(key[:32])

    def encrypt_and_hash(self, plaintext):
        sealed = self.cipher.encrypt(plaintext, self.h)
        self.mix_hash(sealed)
        return sealed

    def decrypt_and_hash(self, sealed):
        plaintext = self.cipher.decrypt(sealed, self.h)
        self.mix_hash(sealed)
        return plaintext

    def split(self):
        first, second = hkdf(self.ck, b"", 2)
        return Cipher(first[:32]), Cipher(second[:32])


class Initiator:
    """IK's initiator: `<- s ... -> e, es, s, ss  <- e, ee, se`. `ss_secret` replaces the
    static secret in the ss exchange alone (to act the part of someone who has another
    key than the one they claim)."""

    def __init__(self, prologue, secret, remote, ephemeral=None, ss_secret=None):
        self.state = Symmetric(prologue)
        self.secret, self.remote = secret, remote
        self.ephemeral = ephemeral or os.urandom(32)
        self.ss_secret = ss_secret or secret
        self.state.mix_hash(remote)

    def write_first(self, payload=b""):
        e = public_of(self.ephemeral)
        self.state.mix_hash(e)
        self.state.mix_key(dh(self.ephemeral, self.remote))
        message = e + self.state.encrypt_and_hash(public_of(self.secret))
        self.state.mix_key(dh(self.ss_secret, self.remote))
        return message + self.state.encrypt_and_hash(payload)

    def read_second(self, message):
        re = message[:32]
        self.state.mix_hash(re)
        self.state.mix_key(dh(self.ephemeral, re))
        self.state.mix_key(dh(self.secret, re))
        payload = self.state.decrypt_and_hash(message[32:])
        send, receive = self.state.split()
        return payload, send, receive


class Responder:
    def __init__(self, prologue, secret, ephemeral=None):
        self.state = Symmetric(prologue)
        self.secret = secret
        self.ephemeral = ephemeral or os.urandom(32)
        self.state.mix_hash(public_of(secret))

    def read_first(self, message):
        self.re = message[:32]
        self.state.mix_hash(self.re)
        self.state.mix_key(dh(self.secret, self.re))
        self.rs = self.state.decrypt_and_hash(message[32:80])
        self.state.mix_key(dh(self.secret, self.rs))
        return self.state.decrypt_and_hash(message[80:])

    def write_second(self, payload=b""):
        e = public_of(self.ephemeral)
        self.state.mix_hash(e)
        self.state.mix_key(dh(self.ephemeral, self.re))
        self.state.mix_key(dh(self.ephemeral, self.rs))
        message = e + self.state.encrypt_and_hash(payload)
        to_responder, to_initiator = self.state.split()
        return message, to_initiator, to_responder


def check_vectors(path):
    """Runs the published IK vectors of `path` (Tests/vectors/noise-ik.json) through this
    implementation; returns how many held, raising on the first that does not."""
    vectors = json.load(open(path))["vectors"]
    for vector in vectors:
        hexes = {k: bytes.fromhex(v) for k, v in vector.items() if isinstance(v, str) and k != "source"
                 and k != "protocol_name"}
        messages = [(bytes.fromhex(m["payload"]), bytes.fromhex(m["ciphertext"])) for m in vector["messages"]]
        initiator = Initiator(hexes["init_prologue"], hexes["init_static"], hexes["init_remote_static"],
                              hexes["init_ephemeral"])
        responder = Responder(hexes["resp_prologue"], hexes["resp_static"], hexes["resp_ephemeral"])
        first = initiator.write_first(messages[0][0])
        assert first == messages[0][1], vector["source"]
        assert responder.read_first(first) == messages[0][0]
        second, hub_send, hub_receive = responder.write_second(messages[1][0])
        assert second == messages[1][1], vector["source"]
        payload, client_send, client_receive = initiator.read_second(second)
        assert payload == messages[1][0]
        if "handshake_hash" in hexes:
            assert initiator.state.h == hexes["handshake_hash"], vector["source"]
        for index, (plaintext, sealed) in enumerate(messages[2:]):
            sender, receiver = (client_send, hub_receive) if index % 2 == 0 else (hub_send, client_receive)
            assert sender.encrypt(plaintext) == sealed, vector["source"]
            assert receiver.decrypt(sealed) == plaintext
    return len(vectors)


class Stream:
    """A handshaken connection: `send` seals a frame, `read` opens the next one."""

    def __init__(self, sock, send, receive):
        self.sock, self.sending, self.receiving = sock, send, receive

    def send(self, body):
        self.sock.sendall(struct.pack(">I", len(body) + 16) + self.sending.encrypt(body))

    def read(self):
        return self.receiving.decrypt(read_exactly(self.sock, struct.unpack(">I", read_exactly(self.sock, 4))[0]))

    def __getattr__(self, name):
        # Everything else (fileno, settimeout, setblocking, recv, close) is the socket's.
        return getattr(self.sock, name)


def open_stream(runtime, public, secret, prove=True, timeout=5):
    """A handshaken stream to the hub of `runtime` as the key pair (Z85). With prove=False
    the client claims `public` but does its `ss` exchange with another secret key: the
    hub cannot read its greeting and closes the connection (the socket is returned
    unconfirmed). Raises ValueError when the hub's answer does not decrypt (not the hub)."""
    hub_public = zmq.utils.z85.decode(hub_key(runtime))
    secret = zmq.utils.z85.decode(secret)
    handshake = Initiator(MAGIC, secret, hub_public, ss_secret=None if prove else os.urandom(32))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(f"{runtime}/hub.stream")
    send_frame(sock, MAGIC + handshake.write_first())
    if not prove:
        return sock
    answer = read_frame(sock)
    if len(answer) != 48:
        raise ValueError("the hub's answer is not the second handshake message")
    try:
        _, sending, receiving = handshake.read_second(answer)
    except Exception as error:
        raise ValueError(f"the hub did not prove its key ({error!r})")
    stream = Stream(sock, sending, receiving)
    stream.send(b"")
    return stream
