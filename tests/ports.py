"""Ports for the servers the tests start (JupyterLab, the hub).

A port found free by binding port 0 comes from the machine's ephemeral range, the range the
kernel also hands every outgoing connection and every other bind to port 0: between the
pick and the server's own bind (minutes, for the hub's set-up), another test's kernel,
gloo group or client can take it. A free port below that range is taken only by someone
who names it.
"""

from __future__ import annotations

import random
import socket


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int = 1) -> int:
    """The first of ``count`` consecutive free ports on 127.0.0.1, below the ephemeral range."""
    low, high = 20000, _ephemeral_low() - count
    for _ in range(200):
        if high <= low:
            break
        first = random.randint(low, high)
        if all(_free(first + i) for i in range(count)):
            return first
    for _ in range(50):  # a machine whose ephemeral range leaves no room below it
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            first = s.getsockname()[1]
        if first + count <= 65535 and all(_free(first + i) for i in range(count)):
            return first
    raise RuntimeError(f"no {count} consecutive free ports on 127.0.0.1")
