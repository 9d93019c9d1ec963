"""Start the course's JupyterHub (demo grade): ``make hub`` runs this.

    python grading/hub/run.py [--port 8000] [--state grading/hub/state] [--course ROOT]
                              [--students ada,ben,cy] [--instructor instructor]
                              [--password course-demo]

Installs JupyterHub's proxy (configurable-http-proxy, pinned in grading/hub/package-lock.json)
with ``npm ci`` the first time, then runs ``jupyterhub -f grading/hub/jupyterhub_config.py``
in the foreground (Ctrl+C stops the hub, every user's server and the proxy).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PROXY = HERE / "node_modules" / ".bin" / "configurable-http-proxy"
STAMP = HERE / "node_modules" / ".installed"
USERNAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,31}$")


class HubError(RuntimeError):
    """Something the hub needs is missing or wrong; the message names the fix."""


def install_proxy() -> Path:
    """configurable-http-proxy in grading/hub/node_modules, exactly as package-lock.json says."""
    lock = HERE / "package-lock.json"
    if PROXY.exists() and STAMP.exists() and STAMP.stat().st_mtime >= lock.stat().st_mtime:
        return PROXY
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise HubError("node and npm not found (JupyterHub's proxy is an npm package): run "
                       "'make system' (installs Debian's nodejs and npm), or: sudo apt-get "
                       "install -y nodejs npm")
    proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                          cwd=HERE, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 or not PROXY.exists():
        raise HubError("npm ci in grading/hub failed (installing configurable-http-proxy): "
                       f"{(proc.stderr or proc.stdout).strip().splitlines()[-1:]}; run "
                       "'cd grading/hub && npm ci' to see why")
    STAMP.touch()
    return PROXY


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def hub_environment(args) -> dict:
    """The environment grading/hub/jupyterhub_config.py reads, checked."""
    if not 1024 <= args.port <= 65533:
        raise HubError(f"--port {args.port}: use a port from 1024 to 65533 (the hub also uses "
                       "the next two: its API and the proxy's API), e.g. make hub HUB_PORT=8000")
    for port in (args.port, args.port + 1, args.port + 2):
        if not port_free(port):
            raise HubError(f"port {port} is in use (the hub needs {args.port} to "
                           f"{args.port + 2}); pick others: make hub HUB_PORT=<port>")
    students = [s.strip() for s in args.students.split(",") if s.strip()]
    bad = [u for u in students + [args.instructor] if not USERNAME.match(u)]
    if bad or not students:
        raise HubError(f"account names {bad or '(no students)'}: use lower-case letters, "
                       "digits, '.', '_' or '-', e.g. HUB_STUDENTS=ada,ben,cy")
    if args.instructor in students:
        raise HubError(f"{args.instructor!r} is both a student and the instructor; pick "
                       "another HUB_INSTRUCTOR=")
    if len(args.password) < 8:
        raise HubError("the shared password must have 8 or more characters "
                       "(JupyterHub's rule): make hub HUB_PASSWORD=<8+ characters>")
    course = args.course.resolve()
    if not (course / "solutions").is_dir():
        raise HubError(f"--course {course}: no solutions/ folder there; pass the course "
                       "repository (the default)")
    state = args.state.resolve()
    (state / "home").mkdir(parents=True, exist_ok=True)
    (course / "grading" / "exchange").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update({
        "HUB_STATE": str(state), "COURSE_ROOT": str(course), "HUB_PORT": str(args.port),
        "HUB_PASSWORD": args.password, "HUB_STUDENTS": ",".join(students),
        "HUB_INSTRUCTOR": args.instructor,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    })
    return env


def command() -> list[str]:
    return [sys.executable, "-m", "jupyterhub", "-f", str(HERE / "jupyterhub_config.py")]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=int(os.environ.get("HUB_PORT") or 8000))
    p.add_argument("--state", type=Path, default=HERE / "state",
                   help="the hub's database, secrets, logs and students' home folders")
    p.add_argument("--course", type=Path, default=REPO, help="the course the instructor serves")
    p.add_argument("--students", default=os.environ.get("HUB_STUDENTS") or "ada,ben,cy")
    p.add_argument("--instructor", default=os.environ.get("HUB_INSTRUCTOR") or "instructor")
    p.add_argument("--password", default=os.environ.get("HUB_PASSWORD") or "course-demo")
    args = p.parse_args(argv)
    try:
        import jupyterhub  # noqa: F401
    except ImportError:
        print("hub: JupyterHub is not installed in this environment; run make hub (it "
              "installs the course's pinned environment) or pip install -e .", file=sys.stderr)
        return 2
    try:
        env = hub_environment(args)
        install_proxy()
    except HubError as exc:
        print(f"hub: {exc}", file=sys.stderr)
        return 2
    print(f"Course hub (demo grade) on http://127.0.0.1:{args.port}/ : students "
          f"{env['HUB_STUDENTS']}, instructor {args.instructor}, password {args.password!r} "
          f"for all. State in {env['HUB_STATE']}. Ctrl+C stops it.", flush=True)
    os.chdir(env["HUB_STATE"])
    os.execvpe(sys.executable, command(), env)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
