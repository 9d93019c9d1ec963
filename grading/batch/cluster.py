"""Grading on a Dask cluster: the jobs, the Dask task that runs one, and the grading child.

grading/batch/autograde.py hands every submission to Dask as one task, on a local cluster (one
worker per core, in the grading process) or on an existing cluster (``--scheduler
tcp://host:8786``: ``dask worker`` processes on other machines, dask-jobqueue, Kubernetes).

- A **job** is plain data: the student id, a job id, the submission's files as
  ``{relative path: bytes}`` and the time limit. The assignment's scratch course (its
  generated notebooks and a gradebook of its own, made by autograde.prepare_template) goes
  to each worker once, scattered, as ``{relative path: bytes}`` too.
- The **result** is plain data as well: the student's grades and comments per notebook,
  notes and errors, and the autograded notebook and HTML feedback as ``{path: bytes}``
  (regular files only, 200 MiB in all at most). Only the grading process on the
  instructor's side writes the course gradebook (autograde.merge_result).
- A Dask task cannot be killed from outside, so the task does not grade: it hands the job
  to a **grading child** (``python -m grading.batch.cluster serve ...``), a long-lived process
  owned by the Dask worker that imports nbgrader once and grades one submission at a time
  in a scratch course of its own (grade_worker.Worker). The task waits for the child's
  reply until the job's time limit, and kills the child's whole process tree (kernels
  included) when the limit passes, when the child dies, or when its reply answers another
  job. Children are reused by later tasks of the same run and stopped at its end; one
  whose Dask worker disappears kills its own tree (it watches its parent), so no process
  outlives its worker.
- A Dask worker lost mid-run (a machine gone, a process killed) loses no grade: the
  scheduler gives its tasks to other workers; every start is logged as an event, so the
  instructor's side knows which submissions were graded again, and says so.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import queue
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path, PurePosixPath

from labkit.judge.reset import SEED_ENV# the run's seed of the hidden tests' generated inputs

REPO = Path(__file__).resolve().parents[2]
COPY_BACK_BYTES = 200 * 1024 * 1024  # autograded notebooks + feedback of one submission
START_SECONDS = 300  # a grading child imports nbgrader and reads its gradebook
WORKERLESS_SECONDS = 300  # a remote cluster with no worker this long stops the run
IDLE_SECONDS = 3600  # a grading child with no job this long exits


class ClusterError(RuntimeError):
    """The cluster cannot grade (no scheduler there, no worker, no sandbox on a worker...);
    the message names the fix. Nothing is merged for the submissions not yet graded."""


class WorkerSetupError(RuntimeError):
    """A Dask worker cannot start a grading child (raised in the task, stops the run)."""


# ---------------------------------------------------------------- plain files <-> bytes

def safe_name(name: str) -> str:
    """``name`` if it is a relative path without '..', else ValueError."""
    p = PurePosixPath(name)
    if not name or p.is_absolute() or any(part in ("", ".", "..") for part in p.parts) \
            or "\\" in name or "\0" in name:
        raise ValueError(f"refused file name {name!r}")
    return p.as_posix()


def write_tree(files: dict[str, bytes], dest: Path) -> None:
    """Write ``files`` under ``dest`` (which must not exist yet), names checked."""
    dest.mkdir(parents=True)
    for name, data in files.items():
        path = dest / safe_name(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def read_regular_files(folder: Path, budget: list[int], prefix: str = "") -> dict[str, bytes]:
    """The regular files under ``folder`` as {relative path: bytes}: no link is followed or
    read, no pipe or device is opened, and at most ``budget[0]`` bytes are read in all
    (``budget`` is decreased; a file that does not fit is left out)."""
    import stat

    out: dict[str, bytes] = {}
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return out
    for entry in entries:
        st = entry.stat(follow_symlinks=False)
        name = f"{prefix}{entry.name}"
        if stat.S_ISDIR(st.st_mode):
            out.update(read_regular_files(Path(entry.path), budget, name + "/"))
        elif stat.S_ISREG(st.st_mode) and st.st_size <= budget[0]:
            fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as f:
                data = f.read(budget[0] + 1)
            if len(data) <= budget[0]:
                out[name] = data
                budget[0] -= len(data)
    return out


def code_digest(root: Path = REPO) -> str:
    """A digest of the course code a worker grades with (grading/ and labkit/ sources)."""
    h = hashlib.sha256()
    for path in sorted([*(root / "grading").glob("*.py"), *(root / "grading").glob("*/*.py"),
                          *(root / "labkit").rglob("*.py")]):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def probe(sandbox: str) -> dict:
    """What a Dask worker's machine offers (run there before a run on a remote cluster)."""
    why = None
    if sandbox == "on":
        from grading.trusted.sandbox import unavailable

        why = unavailable()
    return {"code": code_digest(), "sandbox": why, "repo": str(REPO)}


def kill_tree(pid: int) -> None:
    """Kill a process and every descendant (kernels run in sessions of their own)."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = root.children(recursive=True) + [root]
    except psutil.NoSuchProcess:
        return
    for p in procs:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(procs, timeout=10)


# ---------------------------------------------------------------- on a Dask worker

class Child:
    """One grading child process (``python -m grading.batch.cluster serve``) and its scratch course."""

    def __init__(self, config: dict):
        self.config = config
        self.dir = Path(tempfile.mkdtemp(prefix=f"grading-{config['run'][:8]}-"))
        self.proc: subprocess.Popen | None = None
        self.buffer = b""
        self.log = self.dir / "child.log"

    def start(self) -> None:
        c = self.config
        write_tree(c["template"], self.dir / "course")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env["JUPYTER_CONFIG_PATH"] = str(REPO / "grading")
        env.pop("NBGRADER_EXECUTION", None)
        if c.get("cell_timeout"):
            env["COURSE_CELL_TIMEOUT"] = str(c["cell_timeout"])
        if c.get("seed"):  # the run's seed of generated inputs, on this machine's workers too
            env[SEED_ENV] = str(c["seed"])
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "grading.batch.cluster", "serve", str(self.dir / "course"),
                 c["assignment"], c["hidden"], c["sandbox"]],
                cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                start_new_session=True)
        try:
            ready = self.read(deadline=time.monotonic() + START_SECONDS)
        except ValueError:
            ready = None
        if not isinstance(ready, dict) or not ready.get("ready"):
            why = ready.get("why") if isinstance(ready, dict) else None
            tail = self.log.read_text(errors="replace")[-1500:] if self.log.exists() else ""
            self.stop()
            raise WorkerSetupError(why or f"the grading child did not start:\n{tail}")

    def read(self, deadline: float):
        """One JSON line from the child, or None on timeout or if it died."""
        assert self.proc and self.proc.stdout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return None
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def send(self, msg: dict) -> bool:
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, grace: float = 10) -> None:
        if self.proc is not None:
            if self.proc.poll() is None and grace:
                self.send({"quit": True})
                try:
                    self.proc.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    pass
            kill_tree(self.proc.pid)
            self.proc.wait()
            self.proc = None
        self.buffer = b""
        keep = self.config.get("log_dir")
        if keep and self.log.exists():  # a local run keeps the children's logs in its report
            shutil.copy(self.log, Path(keep) / f"worker-{self.dir.name}.log")
        shutil.rmtree(self.dir, ignore_errors=True)

    def grade(self, job: dict) -> dict:
        """Send ``job``, wait for its reply until the job's limit; the result as plain data."""
        student, limit = job["student"], job["limit"]
        started = time.monotonic()
        msg = {"student": student, "id": job["id"],
               "files": {k: base64.b64encode(v).decode() for k, v in job["files"].items()}}
        reply = None
        if self.send(msg):
            try:
                reply = self.read(deadline=started + limit)
            except ValueError:  # not JSON: never trust a garbled channel
                reply = None
        if reply is not None:
            try:
                if reply.get("student") != student or reply.get("id") != job["id"]:
                    raise ValueError("another job")
                files = {kind: {safe_name(k): base64.b64decode(v, validate=True)
                                for k, v in reply.get("files", {}).get(kind, {}).items()}
                         for kind in ("autograded", "feedback")}
            except (AttributeError, TypeError, ValueError):
                self.stop(grace=0)
                return failed(student, "not graded: its grading process answered for another "
                                       "job; scored 0")
            if "crash" in reply:
                return {"student": student, "crash": str(reply["crash"])}
            if "grader_error" in reply:
                return {"student": student, "grader_error": str(reply["grader_error"])[:2000],
                        "notes": [str(n) for n in reply.get("notes", [])]}
            return {"student": student, "notebooks": reply.get("notebooks", {}),
                    "notes": list(reply.get("notes", [])), "errors": list(reply.get("errors", [])),
                    "graded": bool(reply.get("graded")), "seconds": reply.get("seconds"),
                    "files": files}
        try:  # EOF comes a moment before the exit status
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        status = self.proc.poll()
        took = time.monotonic() - started
        self.stop(grace=0)
        reason = (f"its grading process died after {took:.0f} s (exit status {status})"
                  if status is not None else
                  f"grading took longer than {limit:.0f} s and was stopped")
        return failed(student, f"not graded: {reason}; scored 0")


def failed(student: str, error: str) -> dict:
    return {"student": student, "notebooks": {}, "graded": False, "errors": [error],
            "notes": [], "files": {}}


_LOCK = threading.Lock()
_FREE: dict[str, list[Child]] = {}   # run -> idle children
_ALL: dict[str, list[Child]] = {}    # run -> every child started for it
_ENDED: set[str] = set()


def _checkout(config: dict) -> Child:
    run = config["run"]
    with _LOCK:
        if run in _ENDED:
            raise WorkerSetupError(f"grading run {run} has ended")
        free = _FREE.setdefault(run, [])
        while free:
            child = free.pop()
            if child.alive():
                return child
            child.stop(grace=0)
        child = Child(config)
        _ALL.setdefault(run, []).append(child)
    child.start()
    return child


def _checkin(config: dict, child: Child) -> None:
    run = config["run"]
    with _LOCK:
        if child.alive() and run not in _ENDED:
            _FREE.setdefault(run, []).append(child)
            return
    child.stop(grace=0)


def end_run(run: str) -> int:
    """Stop every grading child of ``run`` on this worker (busy ones too); how many."""
    with _LOCK:
        _ENDED.add(run)
        children = _ALL.pop(run, [])
        _FREE.pop(run, None)
    for child in children:
        child.stop(grace=2 if child.alive() else 0)
    return len(children)


def _end_all() -> None:
    for run in list(_ALL):
        end_run(run)


import atexit  # noqa: E402

atexit.register(_end_all)


def grade_job(config: dict, job: dict) -> dict:
    """The Dask task: grade one job in a grading child of this worker; plain data back."""
    try:
        from distributed import get_worker

        worker = get_worker()
        address = worker.address
        worker.log_event(config["topic"], {"student": job["student"], "worker": address})
    except ValueError:  # not on a Dask worker (called directly)
        address = "local"
    child = _checkout(config)
    try:
        result = child.grade(job)
    finally:
        _checkin(config, child)
    result["worker"] = address
    return result


# ---------------------------------------------------------------- the grading child

def _watch_parent(parent: int) -> None:
    """Kill this process and everything it started as soon as its parent (the Dask worker)
    is gone: a worker killed mid-run leaves no grading process or kernel behind."""
    while os.getppid() == parent:
        time.sleep(0.5)
    import psutil

    for p in psutil.Process().children(recursive=True):
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    os._exit(1)


def serve(argv: list[str]) -> int:
    """``serve ROOT ASSIGNMENT HIDDEN SANDBOX``: grade jobs read on stdin, one JSON line each,
    answering on the original stdout (everything printed goes to stderr)."""
    import traceback

    root, assignment, hidden, sandbox = Path(argv[0]), argv[1], argv[2], argv[3] == "on"
    proto = os.fdopen(os.dup(1), "w", buffering=1)  # the parent's channel, not inherited
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    if sandbox:
        from grading.trusted.sandbox import unavailable

        why = unavailable()
        if why:
            proto.write(json.dumps({"ready": False, "why": "no sandbox for students' code on "
                                    f"this worker: {why}"}) + "\n")
            return 1
    from grading.batch.grade_worker import Worker

    worker = Worker(root, assignment, hidden, sandbox)
    incoming = root / "incoming"
    proto.write(json.dumps({"ready": True}) + "\n")
    while True:  # one job at a time: the parent sends the next only after the reply
        if not select.select([sys.stdin], [], [], IDLE_SECONDS)[0]:
            break  # a run whose instructor vanished: do not hold a scratch course for ever
        line = sys.stdin.readline()
        if not line:
            break
        if not line.strip():
            continue
        job = json.loads(line)
        if job.get("quit"):
            break
        student = job["student"]
        reply = {"student": student, "id": job["id"]}
        src = incoming / uuid.uuid4().hex
        try:
            safe_name(student)
            write_tree({k: base64.b64decode(v) for k, v in job["files"].items()}, src)
            result = worker.grade(student, str(src))
            budget = [COPY_BACK_BYTES]
            result["files"] = {
                kind: {k: base64.b64encode(v).decode() for k, v in read_regular_files(
                    root / "grading" / kind / student / assignment, budget).items()}
                for kind in ("autograded", "feedback")}
            result.pop("root", None)
            reply.update(result, student=student, id=job["id"])
        except Exception:  # noqa: BLE001 (one bad submission never stops the child)
            reply["crash"] = traceback.format_exc()[-2000:]
        finally:
            shutil.rmtree(src, ignore_errors=True)
            for kind in ("submitted", "autograded", "feedback"):
                if student and "/" not in student and student not in (".", ".."):
                    shutil.rmtree(root / "grading" / kind / student, ignore_errors=True)
        proto.write(json.dumps(reply) + "\n")
    return 0


# ---------------------------------------------------------------- on the instructor's side

def connect(scheduler: str | None, jobs: int, sandbox: str, connect_timeout: float = 10):
    """(client, local cluster or None). Remote: the scheduler must answer, have a worker,
    and every worker must run this course code (with a sandbox, unless SANDBOX=off)."""
    import logging

    from distributed import Client, LocalCluster

    if not scheduler:
        for name in ("distributed", "distributed.batched"):  # shutdown chatter of a local run
            logging.getLogger(name).setLevel(logging.ERROR)
        # Threads, not processes: the grading itself runs in the grading children, so the
        # Dask workers only wait on them; no process to spawn, nothing to pickle.
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=False,
                               dashboard_address=":0", silence_logs=logging.ERROR)
        return Client(cluster, set_as_default=False), cluster
    fix = (f"start one on that machine with 'dask scheduler' and workers with 'dask worker "
           f"{scheduler}' (each in a checkout of the course, with its .venv), or leave "
           "SCHEDULER unset to grade on this machine")
    if "://" not in scheduler:
        raise ClusterError(f"SCHEDULER={scheduler}: not a Dask address; write it as "
                           "tcp://host:8786")
    try:
        client = Client(scheduler, timeout=connect_timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"SCHEDULER={scheduler}: no Dask scheduler answered within "
                           f"{connect_timeout:.0f} s ({type(exc).__name__}); {fix}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=60)
        except TimeoutError:
            raise ClusterError(f"SCHEDULER={scheduler}: the scheduler has no worker after 60 s; "
                               f"start some with 'dask worker {scheduler}' in a checkout of "
                               "the course") from None
        mine = code_digest()
        found = client.run(eval, "__import__('grading.batch.cluster').batch.cluster"
                           f".probe({sandbox!r})", on_error="return")
        for address, got in sorted(found.items()):
            if isinstance(got, BaseException):
                raise ClusterError(
                    f"Dask worker {address} cannot load the course's grader ({type(got).__name__}: "
                    f"{got}); start each worker in a checkout of the course: cd COURSE && "
                    f"PYTHONPATH=$PWD .venv/bin/dask worker {scheduler}")
            if got["sandbox"]:
                raise ClusterError(f"Dask worker {address}: {got['sandbox']}; fix it there "
                                   "(make system) or grade with SANDBOX=off")
            if got["code"] != mine:
                raise ClusterError(f"Dask worker {address} grades with other course code than "
                                   f"this machine (grading/ or labkit/ differ, in {got['repo']}); "
                                   "update its checkout to this one and restart the worker")
    except BaseException:
        client.close()
        raise
    return client, None


def grade_all(opts, template: Path, todo: list[tuple[str, Path]], on_result, on_lost,
              limit: float, report: list[str]) -> None:
    """Grade ``todo`` (student, submitted folder) on the cluster ``opts`` asks for, calling
    ``on_result(result)`` in this thread for each graded submission and
    ``on_lost(student, why)`` for one no worker could finish. Lines for the report about
    the cluster go to ``report``."""
    from distributed import KilledWorker
    from distributed.client import FutureCancelledError

    scheduler = getattr(opts, "scheduler", None)
    jobs = max(1, min(opts.jobs or os.cpu_count() or 1, len(todo)))
    client, cluster = connect(scheduler, jobs, opts.sandbox)
    run = uuid.uuid4().hex
    topic = f"course-grading-{run}"
    starts: dict[str, list[str]] = {}
    client.subscribe_topic(topic, lambda ev: starts.setdefault(ev[1]["student"], [])
                           .append(ev[1]["worker"]))
    futures: dict = {}
    finished: queue.Queue = queue.Queue()
    try:
        workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
        report.append(f"Graded on {'a local Dask cluster' if cluster else scheduler}: "
                      f"{len(workers)} worker(s) at the start")
        template_files = {p.relative_to(template).as_posix(): p.read_bytes()
                          for p in template.rglob("*") if p.is_file()}
        config = {"run": run, "topic": topic, "assignment": opts.assignment,
                  "hidden": opts.hidden, "sandbox": opts.sandbox,
                  "cell_timeout": opts.cell_timeout, "template": template_files,
                  "seed": os.environ.get(SEED_ENV, ""),
                  "log_dir": str(template.parent) if cluster is not None else None}
        [cfg] = client.scatter([config], hash=False)
        for i, (student, folder) in enumerate(todo):
            files = {p.relative_to(folder).as_posix(): p.read_bytes()
                     for p in sorted(folder.rglob("*")) if p.is_file()} if folder.is_dir() else {}
            job = {"student": student, "id": uuid.uuid4().hex, "files": files, "limit": limit}
            f = client.submit(grade_job, cfg, job, key=f"grade-{run[:8]}-{i}", pure=False)
            futures[f] = student
            f.add_done_callback(finished.put)
        pending = set(futures)
        lonely_since = None
        lost_workers: set[str] = set()
        while pending:
            try:
                done = [finished.get(timeout=5)]
            except queue.Empty:
                done = []
            pending.difference_update(done)
            if not done:
                n = len(client.scheduler_info(n_workers=-1)["workers"])
                lonely_since = None if n else (lonely_since or time.monotonic())
                if lonely_since and time.monotonic() - lonely_since > WORKERLESS_SECONDS:
                    raise ClusterError(
                        f"no Dask worker left at {scheduler} for {WORKERLESS_SECONDS} s; "
                        f"{len(pending)} submissions not graded. Grades merged so far are "
                        f"kept: start workers with 'dask worker {scheduler}' and run again")
                continue
            for f in done:
                student = futures[f]
                try:
                    result = f.result()
                except KilledWorker as exc:
                    on_lost(student, "not graded: every Dask worker that took it was lost "
                                     f"({exc}); run again to grade it")
                    continue
                except WorkerSetupError as exc:
                    raise ClusterError(f"a Dask worker cannot grade: {exc}") from None
                except FutureCancelledError:
                    raise ClusterError("the grading jobs were cancelled on the cluster; "
                                       "grades merged so far are kept, run again") from None
                except Exception as exc:  # noqa: BLE001 (the cluster's fault, not the student's)
                    raise ClusterError(f"grading {student} failed on the cluster "
                                       f"({type(exc).__name__}: {exc}); grades merged so far "
                                       "are kept, run again") from None
                tried = [w for w in starts.get(student, []) if w != result.get("worker")]
                if tried:
                    lost_workers.update(tried)
                    result.setdefault("notes", []).append(
                        f"graded again on Dask worker {result.get('worker')} after worker "
                        f"{', '.join(sorted(set(tried)))} was lost while grading it")
                on_result(result)
        if lost_workers:
            report.append(f"Dask worker(s) lost mid-run: {', '.join(sorted(lost_workers))}; "
                          "their submissions were graded again on other workers (see notes)")
    finally:
        for f in futures:
            f.release()
        try:
            client.run(end_run, run, on_error="ignore")
        except Exception:  # noqa: BLE001 (a worker gone at the end changes nothing)
            pass
        try:
            client.unsubscribe_topic(topic)
        except Exception:  # noqa: BLE001
            pass
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        sys.path.insert(0, str(REPO))
        sys.exit(serve(sys.argv[2:]))
    sys.exit("usage: python -m grading.batch.cluster serve ROOT ASSIGNMENT HIDDEN SANDBOX")
