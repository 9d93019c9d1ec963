"""How long docs/servers.md's hub loop ("A class on a JupyterHub") takes for a class of N students.

    sudo .venv/bin/python benchmarks/hub_loop.py [--students 3]

Run as root (the hub makes Unix accounts; otherwise it says so and skips, as it does
without Chromium). The loop, in one checkout, as docs/servers.md tells it:
the hub is started as ``make hub`` starts it (grading/hub/run.py: accounts, the users'
environment, the course closed to students, the exchange, the proxy, then JupyterHub) on a
scratch copy of the course, with accounts hubb-<name> and hubb-prof and an exchange of its
own, so that nothing of a real ``make hub`` on this machine is touched; then
``exchange.py release``, each student's fetch, answer and submit, ``exchange.py collect``,
``make autograde`` (grading/batch/autograde.py with make's defaults, run in that same course the
hub closed), ``exchange.py feedback`` and each student's Fetch Feedback.

The students act as their own Unix accounts through the hub, in headless Chromium, as
tests/grading/test_hub.py drives them (its Hub, log-in and Assignment List steps are imported from
there): each logs in (the hub spawns their JupyterLab), fetches from the Assignment List,
types answers into the notebook, saves and submits. The first student answers every
exercise, the second leaves the notebook blank, the third answers only the last exercise
(then again in that order); the scores must come out as full, zero and that exercise's
points, else the script exits 1 naming who got what.

Everything it makes (accounts and homes, the hub and every server, the scratch course and
its exchange) is removed at the end, also when a step fails or on Ctrl+C. Steps run one
after the other; the machine's load moves the figures.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

NAMES = ("ada", "ben", "cy")
ROLES = ("answers fully", "leaves it blank", "half-done")


def plan(students: int) -> list[tuple[str, str]]:
    """(account, role) of each student."""
    names = [NAMES[i] if i < len(NAMES) else f"s{i + 1}" for i in range(students)]
    return [(f"hubb-{n}", ROLES[i % len(ROLES)]) for i, n in enumerate(names)]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--students", type=int, default=3, help="how many students (default 3)")
    args = p.parse_args(argv)
    if args.students < 1:
        p.error("--students must be at least 1")
    # skipped, as the GPU benchmarks are without a GPU, so that make bench runs the rest
    if os.geteuid() != 0:
        print("not root: the hub makes Unix accounts and runs servers as them, skipped")
        return 0
    from tests.browser.server import chromium_missing_message

    missing = chromium_missing_message()
    if missing:
        print(f"{missing}; skipped")
        return 0
    # a kill (SIGTERM) unwinds like Ctrl+C, so that the clean-up below runs
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return run(plan(args.students))


def run(students: list[tuple[str, str]]) -> int:
    from grading.batch.autograde import course_db_url, read_gradebook
    from tests.grading.test_hub import A, exercises, running_hub, total_points

    every = exercises()
    answers = {"answers fully": [(g, a) for g, a, _ in every], "leaves it blank": [],
               "half-done": [every[-1][:2]]}
    expected = {"answers fully": total_points(), "leaves it blank": 0.0,
                "half-done": every[-1][2]}
    clock = Clock()
    print(f"docs/servers.md's hub loop, {A}, {len(students)} students: "
          + ", ".join(f"{n} {r}" for n, r in students), flush=True)
    with running_hub(tuple(name for name, _ in students), "hubb-prof") as hub:
        clock.step("make hub: set-up and start")
        # the rest in a thread of its own: a signal to Playwright's thread can leave it
        # hanging, so this one waits, takes Ctrl+C or a kill, and then kills the rest
        failed: list[BaseException] = []
        worker = threading.Thread(target=_catch, args=(failed, loop, hub, students, answers,
                                                       clock), daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.5)
        finally:
            if worker.is_alive():
                _kill_children_but(hub.proc.pid)
        if failed:
            raise failed[0]
        print(f"{'total':<45} {clock.last - clock.first:8.1f} s", flush=True)
        rows, _ = read_gradebook(course_db_url(hub.course), A)
        scores = {r["student"]: (r["score"], r["max_score"]) for r in rows}
    clock.step("clean-up (hub stopped, accounts removed)")
    wrong = []
    for name, role in students:
        got, out_of = scores.get(name, (None, None))
        print(f"{name} ({role}): {got} / {out_of}")
        if got is None or abs(got - expected[role]) > 1e-9:
            wrong.append(f"{name} ({role}) got {got}, expected {expected[role]:g}")
    if wrong:
        print("wrong scores: " + "; ".join(wrong), file=sys.stderr)
        return 1
    return 0


class Clock:
    def __init__(self):
        self.first = self.last = time.monotonic()

    def step(self, name: str) -> None:
        now = time.monotonic()
        print(f"{name:<45} {now - self.last:8.1f} s", flush=True)
        self.last = now


def _catch(failed: list, fn, *args) -> None:
    try:
        fn(*args)
    except BaseException as exc:  # re-raised by the main thread, after the clean-up
        failed.append(exc)


def _kill_children_but(keep: int) -> None:
    """Kill this process's children and theirs (the browser, a grading run), all but the
    hub's process, which running_hub stops as make hub-stop does."""
    import psutil

    from grading.batch.cluster import kill_tree

    for child in psutil.Process().children():
        if child.pid != keep:
            kill_tree(child.pid)


def loop(hub, students: list[tuple[str, str]], answers: dict, clock: Clock) -> None:
    """docs/servers.md's loop after make hub, each step timed."""
    from tests.browser.server import headless_chromium
    from tests.grading.test_hub import (
        exchange_py,
        fetch_answer_submit,
        fetch_feedback,
        log_in,
        make_autograde,
        new_page,
    )

    exchange_py("release", hub.course)
    clock.step("exchange.py release")
    with headless_chromium() as browser:
        panels = {}
        for name, role in students:
            page = new_page(browser)
            log_in(page, hub, name)
            clock.step(f"{name}: log in (hub spawns JupyterLab)")
            panels[name] = page, fetch_answer_submit(page, name, answers[role])
            clock.step(f"{name}: fetch, answer, submit")
        exchange_py("collect", hub.course)
        clock.step("exchange.py collect")
        grade = make_autograde(hub.course, hub.course / "grading" / "hub" / "collected",
                               timeout_s=3600)
        if grade.returncode != 0:
            raise RuntimeError(f"make autograde failed:\n{grade.stdout[-3000:]}\n"
                               f"{grade.stderr[-3000:]}")
        clock.step("make autograde")
        exchange_py("feedback", hub.course)
        clock.step("exchange.py feedback")
        for name, _ in students:
            page, panel = panels[name]
            if not fetch_feedback(page, panel, name):
                raise RuntimeError(f"Fetch Feedback put no feedback in {name}'s folder")
            clock.step(f"{name}: fetch feedback")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
