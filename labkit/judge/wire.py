"""What the judge and the learner's kernel agree on: the limits of a call and a reply, the
framing of the calls socket, and the exceptions a call can end in.

Runs on both sides of the boundary and trusts nothing it reads: a size read from the
socket is checked against these limits before anything is allocated for it.
"""

from __future__ import annotations

from typing import Any

MAX_REPLY_BYTES = 512 << 20   # a reply larger than this is refused by the judge
MAX_DEPTH = 64                # nesting of containers in a reply
MAX_ITEMS = 2_000_000         # lists, dicts, strings and separators in a reply
# The judge's objects socket, per student (Session): at most MAX_CONNECTIONS connections at
# once (one thread each; the newest idle one makes way for a new one, else the new one is
# closed), a call announcing more than MAX_REQUEST_BYTES refused before it is read, at most
# MAX_BUFFERED_BYTES of calls being read at once (a call that would pass it is refused), and
# a connection that sends nothing for IDLE_SECONDS closed.
MAX_CONNECTIONS = 32
MAX_REQUEST_BYTES = 64 << 20
MAX_BUFFERED_BYTES = 128 << 20
IDLE_SECONDS = 60.0

_HEADER = 16   # a call's or a reply's header: its sequence number and its size, two !Q


def _recv_exactly(conn, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = conn.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("the other side closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _tensors_in(x: Any, depth: int = 0) -> list:
    """Tensors in arguments (inside lists, tuples and dicts too), in a fixed order."""
    if depth > 8:
        return []
    if type(x) in (list, tuple):
        return [t for v in x for t in _tensors_in(v, depth + 1)]
    if type(x) is dict:
        return [t for v in x.values() for t in _tensors_in(v, depth + 1)]
    mod = type(x).__module__ or ""
    if mod.startswith("torch"):
        import torch
        if isinstance(x, torch.Tensor):
            return [x]
    return []


class LearnerCodeError(Exception):
    """The learner's code raised an exception that is not a built-in one."""


class RemoteTimeout(TimeoutError):
    """The learner's code did not answer within the time limit."""


class RemoteDied(RuntimeError):
    """The learner's kernel died while running a call."""
