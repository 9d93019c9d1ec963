"""Timers that synchronize: a clock read only means something once the device is done."""

from __future__ import annotations

import time
from typing import Callable


def sync_for(device=None) -> Callable[[], None]:
    """A function that waits for all queued work on ``device``.

    ``device`` may be a torch.device or string ("cuda:0", "cpu"), an MXNet context, the
    string "mxnet" (waits for MXNet's whole engine), or None (nothing to wait for).
    """
    if device is None:
        return _no_sync
    if isinstance(device, str) and device == "mxnet":
        import mxnet as mx

        return mx.nd.waitall
    if type(device).__module__.startswith("mxnet"):
        import mxnet as mx

        return mx.nd.waitall
    import torch

    dev = torch.device(device)
    if dev.type == "cuda":
        return lambda: torch.cuda.synchronize(dev)
    return _no_sync


def _no_sync() -> None:
    return None


class Timer:
    """Context manager timing a block, calling ``sync()`` before starting and before stopping.

    >>> with Timer(sync_for("mxnet")) as t:
    ...     y = (x @ x).sum()
    >>> t.seconds
    """

    def __init__(self, sync: Callable[[], None] | None = None):
        if sync is not None and not callable(sync):
            raise TypeError(
                f"sync must be a callable such as torch.cuda.synchronize, got {sync!r}; "
                "use labkit.timing.sync_for(device) to get one"
            )
        self.sync = sync or _no_sync
        self.seconds: float | None = None

    def __enter__(self) -> "Timer":
        self.sync()
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.sync()
        self.seconds = time.perf_counter() - self._start

    def __repr__(self) -> str:
        return f"Timer(seconds={self.seconds})"
