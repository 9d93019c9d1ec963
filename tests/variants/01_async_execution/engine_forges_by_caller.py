# cell: engine
# region: 1
# loses: test_engine_order
# alone: it rewires the kernel for whatever runs after it
# attack (issue 21): respects dependencies only when a test step calls push (found by walking
# the stack with sys._getframe), and runs everything at once otherwise. No test step runs where
# the engine does any more: the ops are the test's own and it watches them run.
import sys

frame, graded = sys._getframe(1), False
while frame is not None:
    graded = graded or frame.f_code.co_name in (
        "hazards_on_x", "finished_before_reader", "views_of_two_readers", "finished_before_mixed_op",
        "read_modify_writes", "increments_over_vars", "chain_order", "push_then_wait", "error_of_wait")
    frame = frame.f_back
deps = set()
if graded:
    for var in reads + writes:
        if var in self._last_writer:
            deps.add(self._last_writer[var])
    for var in writes:
        deps.update(self._readers.get(var, ()))
for var in reads:
    self._readers.setdefault(var, []).append(op)
for var in writes:
    self._last_writer[var] = op
    self._readers[var] = []
