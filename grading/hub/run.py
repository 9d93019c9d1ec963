"""Start the course's JupyterHub: ``make hub`` runs this; ``make hub-stop`` runs it with --stop.

    python grading/hub/run.py [--port 8000] [--state grading/hub/state] [--course ROOT]
                              [--students ada,ben,cy] [--instructor instructor]
                              [--password course-demo] [--shared /opt/fast-dl-hub]
                              [--exchange /srv/nbgrader/fast-dl]
    python grading/hub/run.py --stop [--state grading/hub/state]

Run as root. Every step is idempotent (a second run changes nothing):

1. accounts: every student and the instructor get a Unix account of their own (useradd,
   home /home/<name>, mode 0700), unless it exists;
2. the users' environment (--shared/env): the course's Python packages for the users'
   servers, on Debian's /usr/bin/python3.11 (the course's .venv may sit on a Python only
   root can run, e.g. under /root/.pyenv), with labkit copied in; nothing under the course
   folder is needed by a student's server;
3. the course folder: group <instructor>, no access for others (mode 2770 at the top), the
   hub's own state (cookie secret, database) root's alone (0700);
4. nbgrader's exchange (--exchange), outside the course, one root per course (1777 at the
   top), its course folders made by root before any student can (inbound 3733: sticky, so
   no student renames another's hand-in; outbound 0755; feedback 0711), marked with the
   course folder it serves (grading/hub/exchange.py prepare_exchange);
5. configurable-http-proxy (pinned in grading/hub/package-lock.json) with ``npm ci``;

then runs ``jupyterhub -f grading/hub/jupyterhub_config.py`` in the foreground (Ctrl+C
stops the hub, every user's server and the proxy), each user's JupyterLab a process of
that user's own account (LocalProcessSpawner).
"""

from __future__ import annotations

import argparse
import grp
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
if str(REPO) not in sys.path:   # run as a script: grading.* from this course
    sys.path.insert(0, str(REPO))
PROXY = HERE / "node_modules" / ".bin" / "configurable-http-proxy"
STAMP = HERE / "node_modules" / ".installed"
USERNAME = re.compile(r"^[a-z][a-z0-9_-]{0,30}$")
SHARED = Path(os.environ.get("HUB_SHARED") or "/opt/fast-dl-hub")
EXCHANGE = Path(os.environ.get("HUB_EXCHANGE") or "/srv/nbgrader/fast-dl")
BASE_PYTHONS = ("/usr/bin/python3.11", "/usr/local/bin/python3.11")
# never given to the instructor's group: the hub's secrets, the course's environment, git
PRIVATE = ("grading/hub/state", "grading/hub/node_modules", ".venv", ".venv312", ".venv313", ".git")


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


# ---------------------------------------------------------------- accounts

def ensure_accounts(names: list[str]) -> list[str]:
    """A Unix account per name (home /home/<name>, 0700); returns the ones created."""
    created = []
    for name in names:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            p = subprocess.run(["useradd", "--create-home", "--home-dir", f"/home/{name}",
                                "--shell", "/bin/bash", "--user-group", name],
                               capture_output=True, text=True)
            if p.returncode:
                raise HubError(f"useradd {name} failed: {p.stderr.strip()}; create the "
                               f"account yourself (sudo useradd -m {name}) and run again")
            entry = pwd.getpwnam(name)
            created.append(name)
        if entry.pw_uid == 0:
            raise HubError(f"account {name!r} is root (uid 0): a user's server never runs "
                           "as root; pick another name")
        home = Path(entry.pw_dir)
        if not home.is_dir():
            home.mkdir(parents=True)
            os.chown(home, entry.pw_uid, entry.pw_gid)
        home.chmod(0o700)  # nobody else reads a home folder
    return created


def remove_accounts(names: list[str]) -> None:
    """userdel -r (account, home folder, group): what the tests use to leave nothing behind."""
    for name in names:
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        subprocess.run(["userdel", "--remove", name], capture_output=True)
        try:
            grp.getgrnam(name)
            subprocess.run(["groupdel", name], capture_output=True)
        except KeyError:
            pass


# ---------------------------------------------------------------- the users' environment

def world_runnable(path: Path) -> bool:
    """Every folder on the way to ``path`` passable by others, the file executable by them."""
    try:
        real = path.resolve(strict=True)
    except OSError:
        return False
    return all(p.stat().st_mode & 0o001 for p in real.parents) and bool(real.stat().st_mode & 0o001)


def base_python() -> Path:
    for cand in BASE_PYTHONS:
        p = Path(cand)
        if world_runnable(p):
            return p
    raise HubError("no Python 3.11 every user may run (looked for "
                   f"{', '.join(BASE_PYTHONS)}): sudo apt-get install -y python3.11-venv")


def _hardlink_tree(src: Path, dest: Path) -> None:
    """``dest`` a copy of ``src`` made of hard links (no space), or copies across devices."""
    p = subprocess.run(["cp", "-al", str(src), str(dest)], capture_output=True, text=True)
    if p.returncode:
        shutil.rmtree(dest, ignore_errors=True)
        subprocess.run(["cp", "-a", str(src), str(dest)], check=True)


def _rewrite(path: Path, text: str) -> None:
    """Replace a (possibly hard-linked) file by a new one: the course's copy is untouched."""
    mode = path.stat().st_mode & 0o777
    path.unlink()
    path.write_text(text)
    path.chmod(mode)


def user_env(shared: Path = SHARED, source: Path | None = None) -> Path:
    """``shared``/env: a Python environment every user can run, with the course's packages
    (those of ``source``, the course's .venv) on a world-runnable Python; rebuilt when the
    course's environment or labkit changes. Returns its bin folder."""
    source = (source or Path(sys.prefix)).resolve()
    env = shared / "env"
    lib = f"lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
    stamp = env / ".built-from"
    marks = [source / ".installed", source / "pyvenv.cfg"] + sorted((REPO / "labkit").glob("*.py"))
    want = f"{source}\n" + "\n".join(f"{m}:{m.stat().st_mtime_ns}" for m in marks if m.exists())
    if stamp.is_file() and stamp.read_text() == want:
        return env / "bin"
    python = base_python()
    shared.mkdir(parents=True, exist_ok=True)
    shared.chmod(0o755)
    new = shared / ".env.new"
    shutil.rmtree(new, ignore_errors=True)
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(new)], check=True)
    for part in (lib, "share", "etc"):
        if (source / part).is_dir():
            shutil.rmtree(new / part, ignore_errors=True)
            (new / part).parent.mkdir(parents=True, exist_ok=True)
            _hardlink_tree(source / part, new / part)
    site = new / lib
    # labkit as a package of its own, not the editable link into the course folder
    for p in list(site.glob("__editable__*labkit*")):
        p.unlink()
    shutil.copytree(REPO / "labkit", site / "labkit",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # console scripts (jupyter, jupyterhub-singleuser, nbgrader, ...) on the new Python
    for script in sorted((source / "bin").iterdir()):
        target = new / "bin" / script.name
        if target.exists() or script.is_symlink() or not script.is_file():
            continue
        head = script.read_bytes()[:200]
        if head.startswith(b"#!") and str(source).encode() in head.split(b"\n")[0]:
            text = script.read_text()
            first, _, rest = text.partition("\n")
            target.write_text(f"#!{new / 'bin' / 'python'}\n{rest}")
            target.chmod(0o755)
    for spec in (new / "share" / "jupyter" / "kernels").glob("*/kernel.json"):
        text = spec.read_text()
        if str(source) in text or str(REPO) in text:
            _rewrite(spec, text.replace(str(source), str(env)))
    # the paths inside are the final ones: fix them, then move into place
    for script in (new / "bin").iterdir():
        if script.is_file() and not script.is_symlink() and script.stat().st_size < 100_000:
            data = script.read_bytes()
            if str(new).encode() in data:
                script.write_bytes(data.replace(str(new).encode(), str(env).encode()))
    old = shared / ".env.old"
    shutil.rmtree(old, ignore_errors=True)
    if env.exists():
        env.rename(old)
    new.rename(env)
    shutil.rmtree(old, ignore_errors=True)
    check = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            str(env / "bin" / "python"), "-c",
                            "import jupyterhub, nbgrader, jupyterlab, labkit"],
                           capture_output=True, text=True, cwd="/")
    if check.returncode:
        raise HubError(f"the users' environment {env} does not import for an ordinary user: "
                       f"{check.stderr.strip().splitlines()[-1:]}; remove {env} and run again")
    stamp.write_text(want)
    return env / "bin"


def user_configs(shared: Path = SHARED) -> dict[str, Path]:
    """grading/hub/student/ and instructor/ copied to ``shared`` (readable by every account:
    students cannot read the course, and the course may sit under folders closed to others)."""
    out = {}
    for who in ("student", "instructor"):
        dest, new = shared / who, shared / f".{who}.new"
        shutil.rmtree(new, ignore_errors=True)
        shutil.copytree(HERE / who, new, ignore=shutil.ignore_patterns("__pycache__"))
        for p in [new, *new.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        shutil.rmtree(dest, ignore_errors=True)
        new.rename(dest)
        out[who] = dest
    return out


# ---------------------------------------------------------------- the course and the exchange

def secure_course(course: Path, instructor: str) -> None:
    """The course readable and writable by the instructor's group and root only: 2770 at
    the top (students cannot even pass), group <instructor> and g+rwX below (folders
    setgid, so what root writes later keeps the group); the hub's state root's alone."""
    gid = grp.getgrnam(instructor).gr_gid
    private = {course / p for p in PRIVATE}
    os.chown(course, -1, gid)
    course.chmod(0o2770)
    for top, dirs, files in os.walk(course):
        here = Path(top)
        dirs[:] = [d for d in dirs if here / d not in private]
        for name in dirs + files:
            p = here / name
            if p.is_symlink():
                continue
            st = p.lstat()
            if st.st_gid != gid:
                os.chown(p, -1, gid, follow_symlinks=False)
            mode = st.st_mode & 0o7777
            want = (mode | 0o060 | (0o2010 if p.is_dir() else 0)) & ~0o007
            if p.is_file() and mode & 0o100:
                want |= 0o010
            if want != mode:
                p.chmod(want)
    state = course / "grading" / "hub" / "state"
    if state.is_dir():
        state.chmod(0o700)


def instructor_can_reach(course: Path, instructor: str) -> None:
    entry = pwd.getpwnam(instructor)
    p = subprocess.run(["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}",
                        "--init-groups", "test", "-w", str(course / "grading")],
                       capture_output=True)
    if p.returncode:
        blocked = next((str(q) for q in reversed(course.parents)
                        if not q.stat().st_mode & 0o001), "a parent folder")
        raise HubError(f"the instructor account {instructor!r} cannot reach {course} "
                       f"({blocked} is closed to other users): put the course where others "
                       f"may pass (e.g. /srv/course), or chmod o+x {blocked}")


def ensure_exchange(exchange: Path, course: Path) -> Path:
    """nbgrader's exchange of this course (grading/hub/exchange.py prepare_exchange)."""
    from grading.hub.exchange import ExchangeError, prepare_exchange

    try:
        for line in prepare_exchange(exchange, course):
            print(f"hub: warning: {line}", file=sys.stderr)
    except ExchangeError as exc:
        raise HubError(str(exc)) from None
    return exchange


# ---------------------------------------------------------------- start and stop

def hub_environment(args) -> dict:
    """The environment grading/hub/jupyterhub_config.py reads, checked; sets up the
    accounts, the users' environment, the course's permissions and the exchange."""
    if os.geteuid() != 0:
        raise HubError("the hub makes a Unix account per person and runs each server as "
                       "that account: run it as root (sudo make hub)")
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
        raise HubError(f"account names {bad or '(no students)'}: use a lower-case letter, "
                       "then letters, digits, '_' or '-', e.g. HUB_STUDENTS=ada,ben,cy")
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
    if not (course / "grading" / "nbgrader_config.py").is_file():
        raise HubError(f"--course {course}: no grading/nbgrader_config.py (the instructor's "
                       "server serves the course with it); pass the course repository")
    state = args.state.resolve()
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o700)
    ensure_accounts(students + [args.instructor])
    bindir = user_env(args.shared)
    configs = user_configs(args.shared)
    secure_course(course, args.instructor)
    instructor_can_reach(course, args.instructor)
    exchange = ensure_exchange(args.exchange.resolve(), course)
    env = dict(os.environ)
    env.update({
        "HUB_STATE": str(state), "COURSE_ROOT": str(course), "HUB_PORT": str(args.port),
        "HUB_PASSWORD": args.password, "HUB_STUDENTS": ",".join(students),
        "HUB_INSTRUCTOR": args.instructor, "HUB_USER_BIN": str(bindir),
        "HUB_STUDENT_CONFIG": str(configs["student"]),
        "HUB_INSTRUCTOR_CONFIG": str(configs["instructor"]), "COURSE_EXCHANGE": str(exchange),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    })
    return env


def command() -> list[str]:
    return [sys.executable, "-m", "jupyterhub", "-f", str(HERE / "jupyterhub_config.py")]


def _running(pid: int) -> bool:
    """Whether process pid still runs: one that has exited but whose parent has not yet
    collected its exit status (a zombie, e.g. the hub started by a program that waits on
    this stop before it reaps) has stopped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def stop(state: Path, wait_s: float = 180) -> int:
    """make hub-stop: Ctrl+C to the hub (it stops every server and the proxy), then wait."""
    pidfile = state / "jupyterhub.pid"
    try:
        pid = int(pidfile.read_text().strip())
        os.kill(pid, signal.SIGINT)
    except (OSError, ValueError):
        print(f"hub: no hub running (no live process in {pidfile})")
        return 0
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if not _running(pid):
            print(f"hub: stopped (process {pid}, its users' servers and the proxy)")
            return 0
        time.sleep(0.5)
    print(f"hub: process {pid} still running after {wait_s:.0f}s; kill -TERM {pid}",
          file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=int(os.environ.get("HUB_PORT") or 8000))
    p.add_argument("--state", type=Path, default=HERE / "state",
                   help="the hub's database, secrets and logs (root's alone)")
    p.add_argument("--course", type=Path, default=REPO, help="the course the instructor serves")
    p.add_argument("--students", default=os.environ.get("HUB_STUDENTS") or "ada,ben,cy")
    p.add_argument("--instructor", default=os.environ.get("HUB_INSTRUCTOR") or "instructor")
    p.add_argument("--password", default=os.environ.get("HUB_PASSWORD") or "course-demo")
    p.add_argument("--shared", type=Path, default=SHARED,
                   help="the users' Python environment and the students' config")
    p.add_argument("--exchange", type=Path, default=EXCHANGE, help="nbgrader's exchange")
    p.add_argument("--stop", action="store_true", help="stop the hub started with this --state")
    args = p.parse_args(argv)
    if args.stop:
        return stop(args.state.resolve())
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
    print(f"Course hub on http://127.0.0.1:{args.port}/ : students {env['HUB_STUDENTS']}, "
          f"instructor {args.instructor} (Unix accounts of their own), password "
          f"{args.password!r} for all. Exchange {env['COURSE_EXCHANGE']}. State in "
          f"{env['HUB_STATE']}. Ctrl+C (or make hub-stop) stops it.", flush=True)
    os.chdir(env["HUB_STATE"])
    # started as a shell's background job (make hub &), this process ignores SIGINT and the
    # hub would inherit that: Ctrl+C and make hub-stop (which sends SIGINT) must reach it
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.execvpe(sys.executable, command(), env)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
