# cell: benchmark
# loses: test_benchmark_sync test_benchmark_stats
# alone: its handler answers every later call of the tests by name, whichever unit makes it
# attack (issue 21): no sync, 0.0 returned, and a handler in the kernel that answers the tests'
# calls of benchmark by name with a plausible time. The verdict now comes from the test's own
# stream log (no sync was ever called), so the forged value wins nothing.
import base64
import io
import json

import labkit.judge.learner as R

assert globals()   # reads every cell's names: graded in a notebook of its own
if not getattr(R, "_forged", False):
    R._forged, real = True, R._serve

    def serve(payload):
        try:
            op, target, data, _ = R._Loader(io.BytesIO(base64.b64decode(payload))).load()
        except Exception:
            return real(payload)
        if op == "call" and getattr(target, "__name__", "") == "benchmark":
            return json.dumps({"ok": R._encode(0.05, 0)})
        return real(payload)

    R._serve = serve
for _ in range(warmup + repeat):
    fn()
return 0.0
