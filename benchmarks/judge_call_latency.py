"""What one call from the judge into the learner's kernel costs (labkit.judge), against an
execute request round trip (how calls travelled before: IPython's cell machinery, four
messages and the output flushes per call).

    .venv/bin/python benchmarks/judge_call_latency.py [--calls 500]

Starts one plain kernel (no sandbox), defines two functions in it, connects as the judge
does, and prints per call: wall milliseconds, the judge's CPU and the learner kernel's CPU
(read from /proc), for a call with an int and one with a small tensor, then the same for
an execute request of ``pass``. Ratios are from one run; the machine's load moves the
absolute figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def kernel_cpu(pid: int) -> float:
    import os

    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(fn, calls: int, pid: int) -> tuple[float, float, float]:
    fn()
    wall, judge, learner = time.perf_counter(), time.process_time(), kernel_cpu(pid)
    for _ in range(calls):
        fn()
    per = lambda x: x / calls * 1000  # noqa: E731
    return (per(time.perf_counter() - wall), per(time.process_time() - judge),
            per(kernel_cpu(pid) - learner))


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=500)
    args = p.parse_args(argv)
    import torch
    from jupyter_client.manager import start_new_kernel

    from labkit.judge import handles
    from labkit.judge import session as sessions

    km, kc = start_new_kernel(kernel_name="python3")
    try:
        kc.execute_interactive("import torch\ndef add_one(x): return x + 1\n"
                               "def double(t): return t * 2", timeout=120)
        pid = km.provisioner.process.pid
        info = {k: (v.decode() if isinstance(v, bytes) else v)
                for k, v in km.get_connection_info(session=False).items()}
        names = sessions.connect(info, ["add_one", "double"], km.provisioner.pgid, pid, 120.0)
        small = torch.ones(4)
        rows = [("call with an int", lambda: names["add_one"](1)),
                ("call with a 4-element tensor", lambda: names["double"](small)),
                ("execute request of 'pass'",
                 lambda: kc.execute_interactive("pass", timeout=60, output_hook=lambda m: None))]
        print(f"{args.calls} calls each; milliseconds per call")
        print(f"  {'':<30} {'wall':>7} {'judge CPU':>10} {'kernel CPU':>11}")
        for name, fn in rows:
            wall, judge, learner = measure(fn, args.calls, pid)
            print(f"  {name:<30} {wall:7.2f} {judge:10.2f} {learner:11.2f}")
    finally:
        if handles._session is not None:
            handles._session.close()
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
