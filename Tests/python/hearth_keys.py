"""Reading a Hearth key file (Protocols/README.md, "Authentication") with pyzmq."""
import zmq


def key_pair(path):
    """The (public, secret) keys of a Hearth key file: its `secret-key = <Z85>` line, the
    public key derived from it."""
    fields = {}
    for line in open(path).read().splitlines():
        if "=" in line and not line.startswith("#"):
            name, value = line.split("=", 1)
            fields[name.strip()] = value.strip()
    secret = fields["secret-key"].encode()
    return zmq.curve_public(secret), secret


def hub_key(runtime):
    """The public key the hub serving the socket directory `runtime` published."""
    return open(f"{runtime}/hub.pub").read().strip().encode()
