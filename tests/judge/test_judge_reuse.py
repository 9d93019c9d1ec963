"""One judge kernel serves the students of a grading run one after the other, and nothing of
one student's grading reaches the next (grading/trusted/judge.py, labkit.judge.reset.judge_reset)."""

from __future__ import annotations

import shutil

import nbformat
import pytest

from grading.course import generate, nbgrader

ASSIGNMENT = "zz_judge_reuse"


def _meta(**kw) -> dict:
    return {"nbgrader": {"schema_version": 3, "locked": False, "grade": False,
                         "solution": False, **kw}}


def _notebook(answer: str, after: str = "") -> nbformat.NotebookNode:
    setup = nbformat.v4.new_code_cell("import torch\nSHARED = torch.zeros(3)",
                                      metadata=_meta(grade_id="setup", locked=True))
    solution = nbformat.v4.new_code_cell(
        "def touch(t, op=None):\n    if op is not None:\n        op()\n"
        "    ### BEGIN SOLUTION\n" + answer + "\n    ### END SOLUTION",
        metadata=_meta(grade_id="touch", solution=True))
    # Everything an earlier student's grading could leave behind in a reused judge: a name,
    # a changed given tensor (an in-place answer's write-back), a module attribute, a
    # global torch setting, the random generator, a file in the working folder, the
    # environment. The test leaves all of them behind itself, for the next student.
    test = nbformat.v4.new_code_cell(
        "import os, random, labkit.checks\n"
        "print('judge pid', os.getpid())\n"
        "import json, ipykernel.connect\n"
        "print('judge transport', json.loads(ipykernel.connect.get_connection_info())['transport'])\n"
        "import resource\n"
        "cg = [line.split(':', 2) for line in open('/proc/self/cgroup').read().splitlines()]\n"
        "mem = [open(f).read().strip() for _, c, p in cg for f in\n"
        "       ([f'/sys/fs/cgroup/memory{p}/memory.limit_in_bytes'] if 'memory' in c.split(',')\n"
        "        else [f'/sys/fs/cgroup{p}/memory.max'] if not c else []) if os.path.exists(f)]\n"
        "print('judge limits', json.dumps({'cgroup': {c: p for _, c, p in cg}, 'memory': mem,\n"
        "      'as': resource.getrlimit(resource.RLIMIT_AS)[0]}))\n"
        "assert 'leftover' not in globals(), 'a name from an earlier grading'\n"
        "assert torch.equal(SHARED, torch.zeros(3)), f'SHARED changed: {SHARED}'\n"
        "assert not hasattr(labkit.checks, 'mark'), 'a module changed by an earlier grading'\n"
        "assert torch.get_default_dtype() == torch.float32, torch.get_default_dtype()\n"
        "assert not os.path.exists('left.txt'), 'a file from an earlier grading'\n"
        "assert 'LEFT' not in os.environ, 'an environment variable from an earlier grading'\n"
        "from hypothesis import given, settings, strategies as st\n"
        "drawn = []\n"
        "@settings(max_examples=5, database=None)\n"
        "@given(st.integers(0, 2**60))\n"
        "def draw(i):\n"
        "    drawn.append(i)\n"
        "draw()\n"
        "print('first draw', torch.rand(1).item(), random.random(), drawn)\n"
        "calls = []\n"
        "result = touch(SHARED, labkit.judge.handles.owned(lambda: calls.append(os.getpid())))\n"
        "assert calls == [os.getpid()], f'the test-owned op ran elsewhere: {calls}'\n"
        "leftover = 1\n"
        "labkit.checks.mark = 1\n"
        "torch.set_default_dtype(torch.float64)\n"
        "open('left.txt', 'w').close()\n"
        "os.environ['LEFT'] = '1'\n"
        "assert float(result) == 0.0, f'expected 0.0, got {result}'",
        metadata=_meta(grade_id="test_touch", grade=True, points=1, locked=True))
    extra = [nbformat.v4.new_code_cell(after)] if after else []
    return nbformat.v4.new_notebook(
        cells=[setup, solution, test, *extra],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}})


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("reuse")
    (root / "solutions" / ASSIGNMENT).mkdir(parents=True)
    (root / "grading").mkdir()
    nbformat.write(_notebook("    return t.sum()"),
                   str(root / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"))
    db = f"sqlite:///{root / 'grading' / 'gradebook.db'}"
    released = generate(ASSIGNMENT, root, db_url=db)
    # graded in name order: the first writes into the judge's tensor in place (the reply
    # carries the change back onto SHARED), the next ones are honest
    students = {"a-writes-in-place": "    t.add_(1.0)\n    return torch.zeros(())",
                "b-honest": "    return t.sum()", "c-honest": "    return t.sum()"}
    # c's own cell after the test prints what its kernel saw while the test called touch
    after = {"c-honest": "print('seen by the kernel:', SEEN)"}
    students["c-honest"] = "    global SEEN\n    SEEN = repr(op)\n    return t.sum()"
    for student, answer in students.items():
        dest = root / "grading" / "submitted" / student / ASSIGNMENT
        shutil.copytree(released, dest)
        nbformat.write(_notebook(answer, after.get(student, "")),
                       str(dest / f"{ASSIGNMENT}.ipynb"))
    proc = nbgrader("autograde", ASSIGNMENT, "--force", root=root, db_url=db, timeout=900,
                    check=False)
    from nbgrader.api import Gradebook

    scores, outputs, later = {}, {}, {}
    with Gradebook(db) as gb:
        for student in students:
            sn = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            scores[student] = sn.score
            nb = nbformat.read(root / "grading" / "autograded" / student / ASSIGNMENT /
                               f"{ASSIGNMENT}.ipynb", as_version=4)
            outputs[student] = "".join(o.get("text", "") for o in nb.cells[2].outputs
                                       if o.get("output_type") == "stream")
            later[student] = [o for c in nb.cells[3:] for o in c.get("outputs", [])]
    return scores, outputs, proc.stdout + proc.stderr, later


def _line(text: str, head: str) -> str:
    return next(ln for ln in text.splitlines() if ln.startswith(head))


def test_one_judge_served_every_student(graded):
    _, outputs, log, _ = graded
    pids = {_line(out, "judge pid") for out in outputs.values()}
    assert len(pids) == 1, f"expected one judge kernel for the run, saw {pids}\n{log[-3000:]}"


def test_the_judge_listens_on_no_tcp_port(graded):
    """A kernel on TCP gets its ports picked free and bound a moment later: any process
    between the two can take one and the kernel dies before it replies (grading/trusted/kernels.py)."""
    _, outputs, log, _ = graded
    seen = {_line(out, "judge transport") for out in outputs.values()}
    assert seen == {"judge transport ipc"}, f"{seen}\n{log[-3000:]}"


def test_nothing_of_one_student_reaches_the_next(graded):
    scores, outputs, log, _ = graded
    assert scores == {"a-writes-in-place": 1, "b-honest": 1, "c-honest": 1}, \
        f"{scores}\n{outputs}\n{log[-3000:]}"
    draws = {_line(out, "first draw") for out in outputs.values()}
    assert len(draws) == 1, f"the random generators were not put back between students: {outputs}"


def test_learner_outputs_after_the_tests_called_its_code_are_not_kept(graded):
    from grading.trusted.judge import NOT_KEPT

    *_, later = graded
    assert [o.get("text") for o in later["c-honest"]] == [NOT_KEPT]


def test_the_judge_runs_under_limits_of_its_own(graded):
    """The judge kernel runs outside every sandbox: it has a cgroup of its own (memory,
    processes and threads, CPU) where the machine has them, else an address-space rlimit,
    and its cgroup is gone once the judge is."""
    import json

    from grading.trusted.judge import JUDGE_LIMITS
    from grading.trusted.limits import CGROUP_PREFIX, cgroup_support

    _, outputs, log, _ = graded
    seen = {_line(out, "judge limits") for out in outputs.values()}
    assert len(seen) == 1, seen
    limits = json.loads(seen.pop().removeprefix("judge limits "))
    version, parents, _ = cgroup_support()
    if "memory" in parents:
        assert limits["memory"] == [str(JUDGE_LIMITS.memory_bytes)], limits
    else:
        assert limits["as"] == JUDGE_LIMITS.memory_bytes, limits
    for c, parent in parents.items():
        path = next(p for ctrls, p in limits["cgroup"].items()
                    if (c in ctrls.split(",") if version == 1 else not ctrls))
        name = path.rsplit("/", 1)[-1]
        assert name.startswith(CGROUP_PREFIX + "-"), (c, limits["cgroup"])
        assert not (parent / name).exists(), f"the judge's cgroup {parent / name} was left"
