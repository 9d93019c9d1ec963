"""labkit.judge against a real kernel: what crosses from the learner's kernel is plain data."""

from __future__ import annotations

import json
import os
import pickle
import time

import numpy as np
import pytest
import torch
from grading.trusted.kernels import start_new_kernel

from labkit.judge import handles, outside, reset, wire
from labkit.judge import learner as learner_code, reply as replies, session as sessions

LEARNER = '''
import os, time, numpy as np, torch
def add_one_(tensors):
    for t in tensors:
        t.add_(1)
    return tensors[0]
def values():
    return {"i": 2**70, "f": float("nan"), "c": 1 + 2j, "s": "x", "b": b"\\x00", "t": (1, [2]),
            "set": {3}, "z": torch.zeros(()), "bf": torch.ones(2, dtype=torch.bfloat16),
            "a": np.arange(3, dtype=np.int16), "n": np.float32(1.5), "d": torch.float16,
            "one": torch.arange(4.)[::4]}
class Lies:
    def __eq__(self, other): return True
def liar(): return Lies()
class MyError(ValueError): pass
def raises(): raise MyError("bad value")
def loop(): time.sleep(600)
def die(): os._exit(3)
def in_threads(fn, n):
    import threading
    threads = [threading.Thread(target=fn, args=(i,)) for i in range(n)]
    for t in threads: t.start()
    for t in threads: t.join()
    return repr(fn)
def use_clock(clock):
    clock.tick(2)
    return clock.ticks, type(clock.tick).__name__
def peek(obj, name): return getattr(obj, name)
def train(model, x): model(x).sum().backward()
def spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end: pass
def send_on(obj):
    import pickle
    return pickle.dumps(obj)
def relay(obj, tensors):
    return obj(tensors, scale=tensors[0])
'''


@pytest.fixture
def learner():
    km, kc = start_new_kernel(kernel_name="python3")
    kc.execute_interactive(LEARNER, timeout=60)
    info = {k: (v.decode() if isinstance(v, bytes) else v)
            for k, v in km.get_connection_info(session=False).items()}
    names = sessions.connect(info, ["add_one_", "values", "liar", "raises", "loop", "die",
                                  "Lies", "in_threads", "use_clock", "peek", "train", "spin",
                                  "send_on", "relay"], km.provisioner.pgid, km.provisioner.process.pid, 5.0)
    yield names, kc
    if handles._session is not None:
        handles._session.close()
    handles._session = None
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def test_plain_values_come_back_as_fresh_plain_objects(learner):
    names, _ = learner
    v = names["values"]()
    assert v["i"] == 2**70 and np.isnan(v["f"]) and v["c"] == 1 + 2j and v["b"] == b"\x00"
    assert v["t"] == (1, [2]) and v["set"] == {3} and v["d"] is torch.float16
    assert v["z"].shape == () and v["bf"].dtype == torch.bfloat16
    assert v["a"].dtype == np.int16 and type(v["n"]) is np.float32
    assert v["one"].tolist() == [0.0]   # one element, stride 4


def test_in_place_calls_change_the_judges_tensors(learner):
    names, _ = learner
    a, b = torch.zeros(2), torch.ones(3)
    out = names["add_one_"]([a, b])
    assert out is a and a.tolist() == [1, 1] and b.tolist() == [2, 2, 2]


def test_a_lying_object_stays_a_handle_that_equals_nothing(learner):
    names, _ = learner
    x = names["liar"]()
    assert isinstance(x, handles.Remote) and x != 1 and not (x == x.__class__)
    with pytest.raises(TypeError, match="learner_side"):
        pickle.dumps(x)


def test_exceptions_come_back_as_the_nearest_builtin_with_the_learners_traceback(learner):
    names, _ = learner
    with pytest.raises(ValueError, match="bad value") as info:
        names["raises"]()
    assert "MyError" in info.value.__notes__[0] and "_serve" not in info.value.__notes__[0]


def test_forged_replies_are_refused(learner):
    names, kc = learner
    for forged in ['{"ok": {"__t": "tensor", "dtype": "float32", "shape": [4], "b64": "AAAA"}}',
                   '{"ok": {"__t": "ndarray", "dtype": "|O", "shape": [1], "b64": ""}}',
                   '{"ok": {"__t": "tdtype", "v": "Tensor"}}', '[1]', "not json",
                   '{"ok": ' + "[" * 100 + "]" * 100 + "}"]:
        kc.execute_interactive("import labkit.judge.learner as R\n"
                               f"R._serve = lambda payload: {forged!r}", timeout=30)
        with pytest.raises(wire.LearnerCodeError):
            names["values"]()


def test_a_call_that_never_returns_times_out_and_is_interrupted(learner):
    names, _ = learner
    with pytest.raises(wire.RemoteTimeout):
        names["loop"]()
    assert names["values"]()["s"] == "x"  # the kernel was interrupted and answers again


def test_call_within_limits_a_call_by_the_judges_clock_and_raises_its_errors(learner):
    """handles.call_within: the learner's function called straight from the judge with a limit of
    its own (shorter than the session's 5 s), its error raised as it is, the session's limit back
    after; in the learner's kernel (no session) the same on a helper thread."""
    names, _ = learner
    start = time.monotonic()
    with pytest.raises(handles.CallTimeout, match=r"loop\(\) did not return within 1 s"):
        handles.call_within(1, names["loop"], name="loop")
    assert time.monotonic() - start < 4 and handles._session.timeout == 5.0
    with pytest.raises(ValueError, match="bad value"):
        handles.call_within(1, names["raises"])
    assert handles.call_within(2, names["values"])["s"] == "x"
    session, handles._session = handles._session, None
    try:
        with pytest.raises(handles.CallTimeout):
            handles.call_within(0.2, time.sleep, 5)
        with pytest.raises(KeyError):
            handles.call_within(1, {}.__getitem__, "k")
        assert handles.call_within(1, sum, [1, 2]) == 3
    finally:
        handles._session = session


def test_a_kernel_that_dies_is_reported(learner):
    names, _ = learner
    with pytest.raises(wire.RemoteDied):
        names["die"]()


TEST_CELL = """
log = []

def note(i):                       # a test's function: passed by reference
    log.append(i)

class Recorder:                    # a test's class: its instances too
    def __init__(self):
        self.calls = 0

    def __call__(self, i):
        self.calls += 1

recorder = Recorder()
"""


def test_code_a_test_defines_never_enters_the_learners_kernel(learner):
    names, _ = learner
    cell = {"__name__": "__main__"}   # as the judge runs a test cell
    exec(TEST_CELL, cell)
    log, recorder = cell["log"], cell["recorder"]
    assert names["in_threads"](cell["note"], 3) == "<the test's object>"
    assert names["in_threads"](eval("lambda i: log.append(-i)", cell), 2) == "<the test's object>"
    assert names["in_threads"](recorder, 4) == "<the test's object>"
    assert sorted(log) == [-1, 0, 0, 1, 2] and recorder.calls == 4
    with pytest.raises(TypeError):
        names["send_on"](cell["note"])   # and cannot be sent on from there
    assert not hasattr(handles, "in_learner_kernel")


def test_a_call_hands_the_tensors_it_was_given_on_to_a_tests_object(learner):
    """The learner's code passes its arguments straight to a test-owned object: they arrive as
    values (not as references to the call's arguments, which only a reply may use)."""
    names, _ = learner
    seen = []
    cell = {"__name__": "__main__", "seen": seen}
    exec("def take(tensors, scale):\n    seen.append((tensors, scale))\n    return len(tensors)", cell)
    given = [torch.arange(3.0), torch.ones(2)]
    assert names["relay"](cell["take"], given) == 2
    (tensors, scale), = seen
    assert all(torch.equal(a, b) for a, b in zip(tensors, given)) and torch.equal(scale, given[0])


FLOOD = '''
import json, resource, sys
from grading.trusted.kernels import start_new_kernel
from labkit.judge import handles, session as sessions, wire

km, kc = start_new_kernel(kernel_name="python3")
try:
    # the learner's kernel forges a 40 MiB reply of empty lists: [[],[],...]
    kc.execute_interactive(
        "import labkit.judge.learner as R\\n"
        "BIG = '{\\"ok\\": [' + ','.join(['[]'] * ((40 << 20) // 3)) + ']}'\\n"
        "R._serve = lambda payload: BIG\\n"
        "def f(): pass", timeout=300)
    info = {k: (v.decode() if isinstance(v, bytes) else v)
            for k, v in km.get_connection_info(session=False).items()}
    names = sessions.connect(info, ["f"], km.provisioner.pgid, km.provisioner.process.pid, 300.0)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        got = names["f"]()
        outcome = f"decoded a {type(got).__name__} of {len(got)} items"
    except wire.LearnerCodeError as exc:
        outcome = f"refused: {exc}"
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"outcome": outcome, "peak_mib": (after - before) / 1024}))
finally:
    handles._session.close()
    kc.stop_channels()
    km.shutdown_kernel(now=True)
'''


def test_a_reply_of_millions_of_empty_lists_is_refused_before_it_is_built():
    """The judge reads a 40 MiB ``[[],[],...]`` reply (14 million lists, about 2 GiB once
    built) with a clear error and little memory: measured in a process of its own."""
    import json
    import subprocess
    import sys

    got = subprocess.run([sys.executable, "-c", FLOOD], capture_output=True, text=True,
                         timeout=900)
    assert got.returncode == 0, got.stderr[-2000:]
    out = json.loads(got.stdout.strip().splitlines()[-1])
    assert out["outcome"].startswith("refused: the reply has more than 2,000,000 items"), out
    # receiving the message itself costs about three copies of its 40 MiB; building it
    # cost gigabytes
    assert out["peak_mib"] < 400, f"the judge's peak grew by {out['peak_mib']:.0f} MiB"


def test_reply_bounds_on_items_and_depth_and_honest_data_within_them():
    import json

    def reply(value) -> str:
        return json.dumps({"ok": value})

    with pytest.raises(wire.LearnerCodeError, match="nested more than 64 levels"):
        replies._parse_reply(reply(json.loads("[" * 300 + "]" * 300)))
    with pytest.raises(wire.LearnerCodeError, match="more than 2,000,000 items"):
        replies._parse_reply(reply([0] * 2_000_001))
    # within bounds: strings full of brackets and commas, 200,000 floats, deep tuples
    text = "[{,}]" * 1_000_000
    assert replies._decode(replies._parse_reply(reply(learner_code._encode(text, 0)))["ok"]) == text
    floats = [float(i) for i in range(200_000)]
    assert replies._decode(replies._parse_reply(reply(learner_code._encode(floats, 0)))["ok"]) == floats
    deep: tuple = ()
    for _ in range(60):
        deep = (deep, {"k": [1]})
    assert replies._decode(replies._parse_reply(reply(learner_code._encode(deep, 0)))["ok"]) == deep


_COUNT_EXAMPLES = '''
import labkit.judge.reset as r
r.judge_snapshot()
from hypothesis import example, given, settings, strategies as st
seen = []
@settings(max_examples=40, deadline=None, database=None)
@given(st.integers())
@example(-1)
@example(10**30)
def t(x): seen.append(x)
t()
print(len(seen), -1 in seen and 10**30 in seen)
'''


@pytest.mark.parametrize("cap,scale,expected", [(None, None, "42 True"), ("3", None, "5 True"),
                                               (None, "3", "122 True"), ("50", "3", "52 True")])
def test_the_suites_examples_cap_leaves_explicit_examples_and_is_off_in_grading(cap, scale, expected):
    """COURSE_TEST_MAX_EXAMPLES (the suite's variant runs) caps generated examples in a judge,
    COURSE_TEST_EXAMPLES_SCALE (make soak) multiplies them; explicit @example cases all run;
    without either a test draws all it asks for."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if k not in (reset.EXAMPLES_CAP_ENV, reset.EXAMPLES_SCALE_ENV)}
    if cap:
        env[reset.EXAMPLES_CAP_ENV] = cap
    if scale:
        env[reset.EXAMPLES_SCALE_ENV] = scale
    out = subprocess.run([sys.executable, "-c", _COUNT_EXAMPLES], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.strip() == expected, out.stdout + out.stderr[-2000:]


def test_an_oserror_of_a_tests_object_reaches_the_learners_code_and_the_next_call_works(learner):
    """An exception the test's object raises is the learner's code's to see, an OSError (a
    file not found, a broken pipe of the test's own) included: it is not the judge's
    connection breaking, and the calls that follow still reach the object."""
    names, _ = learner
    calls = []
    cell = {"__name__": "__main__", "calls": calls}   # as the judge runs a test cell
    exec("def flaky(tensors, scale):\n"
         "    calls.append(len(tensors))\n"
         "    if len(calls) == 1:\n"
         "        raise FileNotFoundError('no such shard')\n"
         "    if len(calls) == 2:\n"
         "        raise BrokenPipeError(\"the test's own pipe\")\n"
         "    return len(tensors)", cell)
    flaky = cell["flaky"]
    given = [torch.arange(3.0), torch.ones(2)]
    with pytest.raises(FileNotFoundError, match="no such shard"):
        names["relay"](flaky, given)
    with pytest.raises(BrokenPipeError, match="the test's own pipe"):
        names["relay"](flaky, given)
    assert names["relay"](flaky, given) == 2 and calls == [2, 2, 2]


# ---------------------------------------------------------------- the judge's sockets, bounded

STRANGER = 65534   # nobody: any other account on the machine


def _tests_clock():
    """A test's object the learner's code calls (served by the judge over its socket)."""
    cell = {"__name__": "__main__"}
    exec("class Clock:\n    ticks = 0\n    def tick(self, n):\n        self.ticks += n\n"
         "clock = Clock()", cell)
    return cell["clock"]


def _as_stranger(code: str, **kw):
    """``code`` run by a Python of its own as another uid (a hub user)."""
    import subprocess
    import sys

    # the system's Python: the grader's venv may sit where no other user can read it
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    return subprocess.Popen([python, "-I", "-c", code], user=STRANGER, group=STRANGER,
                            extra_groups=[], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


@pytest.mark.skipif(os.geteuid() != 0, reason="another uid needs root")
def test_connections_from_another_uid_are_closed_unserved(learner):
    """Even where a stranger reaches the judge's sockets (their folder opened for the test),
    the kernel's record of who connected (SO_PEERCRED) decides: a call on the test's object
    from another uid is closed unanswered and never runs, and a stranger that connects to the
    calls socket first does not get to answer the judge's calls."""
    names, _ = learner
    clock = _tests_clock()
    assert names["use_clock"](clock) == (2, "_JudgeObject")
    session = handles._session
    session._drop()   # the learner's kernel connects again for the next call
    folder = os.path.dirname(session.path)
    mode = os.stat(folder).st_mode & 0o7777
    os.chmod(folder, 0o755)
    try:
        _stranger_calls(names, clock, session, folder)
    finally:   # this process's private folder: closed again for the tests after this one
        os.chmod(folder, mode)


def _stranger_calls(names, clock, session, folder) -> None:
    for path in (session.path, session._calls_path):
        os.chmod(path, 0o666)
    request = json.dumps({"op": "getattr", "key": id(clock), "name": "tick"}).encode()
    call = _as_stranger(f"""
import socket, struct
s = socket.socket(socket.AF_UNIX)
s.connect({session.path!r})
s.settimeout(10)
try:
    s.sendall(struct.pack("!Q", {len(request)}) + {request!r})
    print("answered" if s.recv(8) else "closed")
except (ConnectionError, OSError):
    print("closed")
""")
    called = call.communicate(timeout=60)[0].strip()
    takeover = _as_stranger(f"""
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX)
s.connect({session._calls_path!r})
print("connected", flush=True)
s.settimeout(30)
try:
    seq, size = struct.unpack("!QQ", s.recv(16, socket.MSG_WAITALL))
    s.recv(size, socket.MSG_WAITALL)
    forged = json.dumps({{"ok": 42}}).encode()
    s.sendall(struct.pack("!QQ", seq, len(forged)) + forged)
    print("answered")
except (ConnectionError, OSError, struct.error):
    print("closed")
""")
    assert takeover.stdout.readline().strip() == "connected"
    try:
        got = names["values"]()
    except wire.LearnerCodeError as exc:
        got = exc
    answered = takeover.communicate(timeout=60)[0].strip()
    assert (called, answered, type(got) is dict and got["s"] == "x", clock.ticks) == \
        ("closed", "closed", True, 2), got


FLOODER = '''
import socket, struct, threading
PATH = %r
idle, pushed = [], []
for _ in range(400):                  # idle connections, kept open
    s = socket.socket(socket.AF_UNIX)
    s.connect(PATH)
    idle.append(s)
def push(announce, send):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(PATH)
        pushed.append(s)
        s.sendall(struct.pack("!Q", announce) + bytes(send))
    except OSError:
        pass
threads = [threading.Thread(target=push, args=(a, 24 << 20))
           for a in [510 << 20] * 12 + [60 << 20] * 12]
for t in threads: t.start()
for t in threads: t.join(60)
print(len(idle), len(pushed))
'''


def _threads_and_rss() -> tuple[int, int]:
    rss = next(int(line.split()[1]) for line in open("/proc/self/status")
               if line.startswith("VmRSS:"))
    return len(os.listdir("/proc/self/task")), rss << 10


def test_a_flood_of_connections_leaves_the_judge_bounded_and_honest_calls_working(learner):
    """The learner's code opens 400 idle connections to the judge's objects socket and 24 that
    announce big calls (12 of 510 MiB, 12 of 60 MiB) and send 24 MiB each, and keeps them all
    open: the judge (this process) holds at most MAX_CONNECTIONS more threads and at most
    MAX_BUFFERED_BYTES of their bytes, and the test's calls still work."""
    names, kc = learner
    clock = _tests_clock()
    assert names["use_clock"](clock) == (2, "_JudgeObject")
    threads, rss = _threads_and_rss()
    reply = kc.execute_interactive(FLOODER % handles._session.path, timeout=120)
    assert reply["content"]["status"] == "ok", reply["content"]
    time.sleep(0.5)
    threads_now, rss_now = _threads_and_rss()
    grown = (rss_now - rss) >> 20
    bound = getattr(wire, "MAX_BUFFERED_BYTES", 128 << 20) >> 20
    assert (threads_now - threads <= getattr(wire, "MAX_CONNECTIONS", 32) + 2,
            grown < bound + 48) == (True, True), \
        f"the judge went from {threads} to {threads_now} threads, its memory grew {grown} MiB"
    assert names["use_clock"](clock) == (4, "_JudgeObject")
    assert names["values"]()["s"] == "x"


def test_an_idle_connection_is_closed(learner, monkeypatch):
    import socket

    names, _ = learner
    monkeypatch.setattr(sessions, "IDLE_SECONDS", 0.5, raising=False)
    clock = _tests_clock()
    assert names["use_clock"](clock) == (2, "_JudgeObject")
    s = socket.socket(socket.AF_UNIX)
    s.connect(handles._session.path)
    s.settimeout(10)
    start = time.monotonic()
    try:
        closed = s.recv(1) == b""
    except TimeoutError:
        closed = False
    assert closed and time.monotonic() - start < 5, "the judge kept an idle connection open"
    s.close()
    assert names["use_clock"](clock) == (4, "_JudgeObject")


def test_more_threads_than_connections_each_get_their_calls_answered(learner):
    """Honest code calling a test's object from more threads at once than the judge serves
    connections: every call is answered (a connection closed unanswered is replaced), and
    each runs once."""
    names, _ = learner
    cell = {"__name__": "__main__", "log": []}
    exec("def note(i):\n    log.append(i)", cell)
    n = getattr(wire, "MAX_CONNECTIONS", 32) + 16
    assert names["in_threads"](cell["note"], n) == "<the test's object>"
    assert sorted(cell["log"]) == list(range(n))


def test_judge_mapped_memory_is_read_by_the_judge_not_asked_of_the_kernel(learner, tmp_path):
    """JudgeMapped's tensors live in files the judge made and reads through its own
    descriptors: a write in place shows; a tensor rebound to new memory (t.set_) leaves the
    memory it was given as it was, whatever the kernel says of it afterwards."""
    names, kc = learner
    handles._session.folder = str(tmp_path)  # the kernel's socket folder in trusted grading
    kc.execute_interactive("def rebind_(ts):\n    for t in ts:\n        t.set_(t + 1)\n", timeout=30)
    lb = handles.learner_side("builtins")
    given = [torch.arange(6.0).view(2, 3), torch.ones(2, 3, dtype=torch.bfloat16)]
    mapped = outside.JudgeMapped(given, transposed=True)
    assert not list(tmp_path.glob("mapped-*"))     # no name left to reach the files by
    lb.list(lb.map(names["add_one_"], mapped.there))
    got = mapped.read()
    assert torch.equal(got[0], given[0] + 1) and torch.equal(got[1], given[1] + 1)
    rebound = outside.JudgeMapped(given)
    lb.list(lb.map(handles.Remote(("n", "rebind_")), rebound.there))
    assert all(torch.equal(a, b) for a, b in zip(rebound.read(), given))
    assert outside.kernel_memory([(0, 8)]) is None  # no sandbox record: nothing read


SHARED_RESULT = '''
import torch
_real_data_ptr = torch.Tensor.data_ptr
_copies, _asked = {}, {}
def own_sums(buffers):
    total = torch.stack(buffers).sum(0)
    return [total.clone() for _ in buffers]
def shared_sum(buffers):                      # one tensor for every worker, a copy each kept aside
    out = [torch.stack(buffers).sum(0)] * len(buffers)
    _copies[id(out[0])] = (out[0], [out[0].clone() for _ in out])
    return out
def plain_shared(buffers):
    return [torch.stack(buffers).sum(0)] * len(buffers)
def _not_an_int(self, asked=[0]):              # a fraction more each time: never the same twice
    asked[0] += 1
    return _real_data_ptr(self) + asked[0] / 4
def _a_copys_address(self):                   # the shared result "lives" at the next copy's address
    kept = _copies.get(id(self))
    if kept is None or kept[0] is not self:
        return _real_data_ptr(self)
    n = _asked[id(self)] = _asked.get(id(self), -1) + 1
    return _real_data_ptr(kept[1][n % len(kept[1])])
torch.Tensor.data_ptr = _a_copys_address
'''


def test_a_returned_tensor_must_be_found_in_its_own_memory(learner, tmp_path, monkeypatch):
    """03's calls_kept_there reads each returned tensor's memory at the address torch gives in
    the kernel, changes it there and reads the tensor again: a result shared by every worker,
    reported at the addresses of copies that hold its values, or at addresses that are not
    ints, is refused; distinct results pass, and their memory is put back."""
    from labkit.checks.allreduce import calls_kept_there

    _, kc = learner
    kc.execute_interactive(SHARED_RESULT, timeout=30)
    handles._session.folder = str(tmp_path)
    record = tmp_path / "record"                    # as a forked sandbox's PID 1 writes it
    record.write_text(f"k{handles._session.pid}\n")
    monkeypatch.setattr(handles._session, "workers_record", str(record))
    monkeypatch.setattr(handles._session, "pid", os.getpid())   # the kernel's parent, as PID 1 is
    cases = [[torch.arange(5.0), torch.ones(5)], [torch.tensor([2**60 + 1, -3]), torch.tensor([5, 7])] * 2]
    outs, _, out_at, _ = calls_kept_there(handles.Remote(("n", "own_sums")), cases)
    assert [[o.tolist() for o in out] for out in outs] == [[[1.0, 2.0, 3.0, 4.0, 5.0]] * 2,
                                                         [[2 * (2**60 + 6), 8]] * 4]
    assert outside.kernel_memory([(out_at[1][0], 16)]) == [torch.tensor([2 * (2**60 + 6), 8]).numpy().tobytes()]
    with pytest.raises(AssertionError, match="returned buffer 0: the memory at the address torch gives for it "
                                             r"\(data_ptr\) is not its own"):
        calls_kept_there(handles.Remote(("n", "shared_sum")), cases)
    kc.execute_interactive("torch.Tensor.data_ptr = _real_data_ptr\n"
                           "torch.Tensor.stride = lambda self, *a, _s=torch.Tensor.stride: tuple(k << 30 for k in _s(self))",
                           timeout=30)
    with pytest.raises(AssertionError, match=r"returned buffer 0: its strides \(1073741824,\), as torch where"):
        calls_kept_there(handles.Remote(("n", "own_sums")), cases)     # the judge reads no gigabytes
    kc.execute_interactive("del torch.Tensor.stride; torch.Tensor.data_ptr = _not_an_int", timeout=30)
    with pytest.raises(AssertionError, match=r"returned buffer 0: torch where your code runs gives no address"):
        calls_kept_there(handles.Remote(("n", "plain_shared")), cases)


LYING_CONTAINERS = '''
import collections, torch
_deque = collections.deque
class _SaysAll(_deque):                        # len() says every case is there; reading it gives none
    def __len__(self):
        return 2
    def __iter__(self):
        return iter(())
def sums(buffers):
    total = torch.stack(buffers).sum(0)
    return [total.clone() for _ in buffers]
'''


def test_cases_cannot_vanish_between_what_the_kernel_counts_and_what_it_gives(learner, tmp_path, monkeypatch):
    """calls_kept_there counts the results it read, not what the kernel's container answers to
    len(): a container that reports every case and gives none fails, and so does a second read
    of the results that gives other values than the first; the pool's reports are counted by
    the test's world size, not the pool's word."""
    from labkit.checks.allreduce import calls_kept_there, one_report_per_rank

    _, kc = learner
    kc.execute_interactive(LYING_CONTAINERS, timeout=30)
    handles._session.folder = str(tmp_path)
    record = tmp_path / "record"
    record.write_text(f"k{handles._session.pid}\n")
    monkeypatch.setattr(handles._session, "workers_record", str(record))
    monkeypatch.setattr(handles._session, "pid", os.getpid())
    cases = [[torch.arange(5.0), torch.ones(5)], [torch.tensor([3, -3]), torch.tensor([5, 7])]]
    outs, _, _, _ = calls_kept_there(handles.Remote(("n", "sums")), cases)
    assert [[o.tolist() for o in out] for out in outs] == [[[1.0, 2.0, 3.0, 4.0, 5.0]] * 2, [[8, 4]] * 2]
    kc.execute_interactive("collections.deque = _SaysAll", timeout=30)
    with pytest.raises(AssertionError, match="returned for 0 of the 2 cases"):
        calls_kept_there(handles.Remote(("n", "sums")), cases)
    kc.execute_interactive("class _Changes(_deque):              # read a second time, other tensors\n"
                           "    reads = {}\n"
                           "    def __iter__(self):\n"
                           "        n = self.reads[id(self)] = self.reads.get(id(self), 0) + 1\n"
                           "        items = list(super().__iter__())\n"
                           "        return iter(items if n < 2 else [[t * 0 for t in r] for r in items])\n"
                           "collections.deque = _Changes", timeout=30)
    with pytest.raises(AssertionError, match="case 0: reading the returned buffers again where your code runs gave "
                                             "other values than it returned"):
        calls_kept_there(handles.Remote(("n", "sums")), cases)
    for reports in ([], [{"args": []}], ({}, {}), [{}, []]):
        with pytest.raises(AssertionError, match="expected 2 reports, a dict for each rank"):
            one_report_per_rank(reports, 2, "2 ranks")
    assert one_report_per_rank([{}, {}], 2, "2 ranks") == [{}, {}]
