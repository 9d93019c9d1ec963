"""Run part of a test where the learner's code lives; judge its plain-data result elsewhere.

In the learner's own kernel (Validate, ``make validate``, self-study) everything here is a
no-op: a decorated function is called directly. In trusted grading the test cells run in a
separate judge process that never runs learner code; there a function decorated with
``in_learner_kernel`` is shipped into the learner's sandboxed kernel, run there, and only
its result comes back, as plain data (numbers, strings, bools, None, lists, tuples, dicts,
tensors, arrays, dtypes, exceptions).
"""

from __future__ import annotations

from typing import Any, Callable

_session: Any = None  # set by the judge in trusted grading; None in the learner's kernel


def in_learner_kernel(fn: Callable) -> Callable:
    """Decorator: run ``fn`` where the learner's code runs; its result must be plain data."""
    if _session is None:
        return fn
    return _session.shipped(fn)
