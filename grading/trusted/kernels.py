"""Where the grader's own kernels listen: Unix sockets in a private folder, never TCP ports.

jupyter_client's default transport picks five free TCP ports, closes them, and hands their
numbers to the kernel, which binds them a moment later. Any process on the machine that
binds or connects in between (another kernel, a gloo group, a Dask worker) can take one,
and the kernel dies with "Address already in use" before it replies. A grader starts
thousands of kernels beside such processes; local IPC sockets (``transport="ipc"``) have
no such window, and no other user can reach them.

``ipc_address()`` gives a fresh socket path prefix in ``private_folder()``, one 0700
folder per process, removed when the process that made it ends. ``IpcKernelManager`` is an ``AsyncKernelManager`` that
listens there unless told otherwise (nbclient's ``kernel_manager_class``); ``use_ipc(km)``
does the same to a kernel manager made elsewhere; ``start_new_kernel`` is jupyter_client's
blocking function of that name on them.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

_folder: Path | None = None
_owner = 0


PREFIX = "grader-private-"


def private_folder() -> Path:
    """This process's own 0700 folder (its kernels' sockets, the sandbox's hosts file),
    removed when the process ends; a forked child makes its own. Folders of processes that
    ended without removing theirs (a grading process killed at its time limit) are removed
    by the next process that makes one."""
    global _folder, _owner
    if _folder is None or _owner != os.getpid():
        _sweep()
        _folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))   # mode 0700
        _owner = os.getpid()
    return _folder


def _sweep() -> None:
    for path in Path(tempfile.gettempdir()).glob(f"{PREFIX}*-*"):
        try:
            pid = int(path.name[len(PREFIX):].split("-")[0])
            if path.lstat().st_uid != os.getuid() or not path.is_dir() or path.is_symlink():
                continue
            os.kill(pid, 0)
        except ProcessLookupError:   # its process is gone
            shutil.rmtree(path, ignore_errors=True)
        except (ValueError, OSError):   # not ours to judge, or alive as another user
            continue


def ipc_address() -> str:
    """A new socket path prefix (jupyter_client appends ``-<n>`` per channel)."""
    return str(private_folder() / f"kernel-{uuid.uuid4().hex[:12]}")


@atexit.register
def _remove() -> None:
    if _folder is not None and _owner == os.getpid():
        shutil.rmtree(_folder, ignore_errors=True)


def use_ipc(km):
    """``km`` (not started yet) listening on a fresh private IPC address."""
    km.transport = "ipc"
    km.ip = ipc_address()
    return km


class IpcKernelManager(AsyncKernelManager):
    """An AsyncKernelManager whose kernel listens on private IPC sockets."""

    def __init__(self, **kwargs):
        kwargs.setdefault("transport", "ipc")
        super().__init__(**kwargs)
        if self.transport == "ipc" and not kwargs.get("ip"):
            self.ip = ipc_address()


def start_new_kernel(kernel_name: str = "python3", startup_timeout: float = 60):
    """jupyter_client's blocking ``start_new_kernel`` (manager, ready client), on IPC."""
    from jupyter_client.manager import KernelManager

    km = use_ipc(KernelManager(kernel_name=kernel_name))
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=startup_timeout)
    except RuntimeError:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        raise
    return km, kc
