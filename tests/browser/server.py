"""The course's JupyterLab server for browser tests, and headless Chromium to open it.

A scratch copy of the course (notebooks/, solutions/, an empty grading/) is served, so
running cells, saving or validating never writes outputs into the repository's notebooks.
The server is configured as `make lab` configures it (same environment, same extensions,
JUPYTER_CONFIG_PATH=grading/), with NBGRADER_EXECUTION=validate so notebooks run their lean
grading-mode demos, and `expose_app_in_browser` so the tests can read cell outputs and the
kernel's status from the page.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from tests.harness import SESSION_FIXTURE_ENV
from tests.ports import free_ports

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
CHROMIUM = Path(os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
ARTIFACTS = REPO / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
COURSE_FOLDERS = ("notebooks", "solutions")

# Generous limits: 2 shared cores, several engineers' test runs at the same time.
SERVER_START_S = 180


def chromium_missing_message() -> str | None:
    """One line saying how to install Chromium, or None when it is there."""
    if CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK):
        return None
    return (f"Chromium not found at {CHROMIUM}: the browser tests need Debian's Chromium; "
            "install it with: sudo apt-get update && sudo apt-get install chromium")


@contextmanager
def headless_chromium():
    """One Playwright and one headless Chromium, closed on leaving (Playwright's sync API runs
    one instance per thread)."""
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


def discover_notebooks(repo: Path = REPO) -> list[str]:
    """Every notebook under notebooks/ and solutions/, as paths relative to the repository."""
    found = []
    for folder in COURSE_FOLDERS:
        for path in sorted((repo / folder).rglob("*.ipynb")):
            rel = path.relative_to(repo)
            if any(part.startswith(".") for part in rel.parts):
                continue  # .ipynb_checkpoints, hidden scratch copies
            found.append(rel.as_posix())
    return found


def is_learner(path: str) -> bool:
    """True for a learner notebook (notebooks/...), False for a solution (solutions/...)."""
    return path.startswith("notebooks/")


def graded_test_cells(path: str, repo: Path = REPO) -> set[int]:
    """Indices of the notebook's graded test cells (nbgrader grade, not solution): the only
    cells of an untouched learner notebook that may raise the stubs' NotImplementedError."""
    cells = json.loads((repo / path).read_text())["cells"]
    return {i for i, c in enumerate(cells)
            if c.get("metadata", {}).get("nbgrader", {}).get("grade")
            and not c["metadata"]["nbgrader"].get("solution")}


def _copy_regular_files(src: str, names: list[str]) -> list[str]:
    """shutil.copytree ignore: skip checkpoints, caches, sockets and other special files."""
    skip = []
    for name in names:
        full = os.path.join(src, name)
        mode = os.lstat(full).st_mode
        if name in (".ipynb_checkpoints", "__pycache__") or not (
            stat.S_ISREG(mode) or stat.S_ISDIR(mode)
        ):
            skip.append(name)
    return skip


def scratch_course(dest: Path, repo: Path = REPO) -> Path:
    """A copy of the course folders that JupyterLab serves (the repository stays untouched)."""
    for folder in COURSE_FOLDERS:
        if (repo / folder).is_dir():
            shutil.copytree(repo / folder, dest / folder, ignore=_copy_regular_files)
    (dest / "grading").mkdir(parents=True, exist_ok=True)
    return dest


class LabServer:
    """`jupyter lab` as `make lab` runs it, on a free localhost port with a random token."""

    def __init__(self, root: Path, workdir: Path):
        self.root, self.workdir = root, workdir
        self.token = secrets.token_hex(24)
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.log_path = workdir / "jupyterlab.log"
        self.runtime_dir: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict:
        env = dict(os.environ)
        for name in ("MPLBACKEND", "JUPYTER_TOKEN", "JUPYTERHUB_API_TOKEN", "PYTEST_CURRENT_TEST"):
            env.pop(name, None)  # kernels draw inline plots, as for a learner
        env.update({
            "JUPYTER_CONFIG_PATH": str(REPO / "grading"),
            "JUPYTER_CONFIG_DIR": str(self.workdir / "jupyter-config"),  # no personal config
            "JUPYTER_RUNTIME_DIR": str(self.runtime_dir),
            "COURSE_ROOT": str(self.root),
            "NBGRADER_EXECUTION": "validate",
            SESSION_FIXTURE_ENV: "browser",  # tests that count leftover processes skip this tree
            "PATH": os.pathsep.join([str(VENV_BIN), env.get("PATH", "")]),
        })
        return env

    def command(self) -> list[str]:
        return [
            str(VENV_BIN / "jupyter"), "lab", "--no-browser",
            f"--ServerApp.root_dir={self.root}",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            "--LabApp.expose_app_in_browser=True",
            f"--LabApp.user_settings_dir={self.workdir / 'lab-settings'}",
            f"--LabApp.workspaces_dir={self.workdir / 'lab-workspaces'}",
            "--ServerApp.shutdown_no_activity_timeout=3600",
            # Kernels on Unix sockets in the runtime folder, as the grader's: on TCP the server
            # picks five free ports, releases them and lets the kernel bind them a moment later,
            # while the other tests' kernels, workers and servers open sockets.
            "--KernelManager.transport=ipc",
        ] + (["--ServerApp.allow_root=True"] if os.geteuid() == 0 else [])  # CI runs as root

    def _quiet_settings(self) -> None:
        """No 'Jupyter news?' toast over the screenshots, no update checks (offline CI), and no
        autosave: a notebook closed while its autosave ran left a "File Save Error ...:
        Disposed" dialog over the next notebook's widgets (the tests save when they mean to)."""
        folder = self.workdir / "lab-settings" / "@jupyterlab" / "apputils-extension"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        folder = self.workdir / "lab-settings" / "@jupyterlab" / "docmanager-extension"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))

    def start(self) -> None:
        self._quiet_settings()
        # A short folder: the kernels' Unix sockets are named after their connection files
        # there, and a socket's path holds at most 107 bytes (pytest's folders run to 60).
        self.runtime_dir = Path(tempfile.mkdtemp(prefix="lab-runtime-"))
        for _attempt in range(3):
            self.port = free_ports()
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(
                    self.command(), cwd=self.root, env=self.env(), stdout=log,
                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                )
            if self._wait_ready():
                return
            if self.proc.poll() is None:
                break  # running but not answering: no point retrying on another port
        log = self.log_tail()
        self.stop()
        raise RuntimeError(f"JupyterLab did not answer on {self.url} within {SERVER_START_S}s; "
                           f"its log ({self.log_path}) ends:\n{log}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                self.api("GET", "/api/status", timeout=5)
                return True
            except OSError:
                time.sleep(0.5)
        return False

    def api(self, method: str, path: str, timeout: float = 30):
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def log_tail(self, n: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return "(no log)"

    def _kernel_pids(self) -> list[int]:
        """Processes started with a connection file in this server's runtime dir (its kernels)."""
        pids, marker = [], str(self.runtime_dir).encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if marker in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
        return pids

    def stop(self) -> None:
        """Shut kernels and the server down; kill the process group if it does not go."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                for kernel in self.api("GET", "/api/kernels", timeout=10) or []:
                    self.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=20)
            except OSError:
                pass
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=20)
            except (ProcessLookupError, PermissionError):
                pass
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for pid in self._kernel_pids():  # kernels run in their own process groups
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.proc = None
        if self.runtime_dir is not None:
            shutil.rmtree(self.runtime_dir, ignore_errors=True)
