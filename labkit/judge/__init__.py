"""The judge's machinery: how a notebook's test cells observe the learner's code when grading
is trusted, and the same test cells' plain behaviour in the learner's own kernel.

The boundary: in trusted grading the learner's code runs in a sandboxed kernel, and the test
cells run in a judge kernel that never runs learner code (grading/trusted/judge.py). Each
module says in its first lines which side it runs on and what it may trust.

Both sides
  wire       the limits of a call and a reply, the framing of the calls socket, the errors
Learner's side (inside the sandbox; nothing it says is trusted)
  learner    answers the judge's calls, encodes results as plain data
  pool       worker processes with a gloo group, kept across calls (a meter's subjects)
Judge's side
  handles    ``learner_side``, ``owned`` and ``Remote``: the test's view of the learner's objects
  reply      the strict reader of the learner's replies: plain values only
  session    the connection to one learner kernel: calls, time limits, the test's own objects
  outside    the sandbox's record of its processes, their memory, tensors the judge maps itself
  reset      the judge kernel back to its booted state between students; the run's seed
Checks test cells call
  contract   ``agrees``/``refuses``/``same``: the learner's function against the reference
  traffic    ``Meter``: bytes between the ranks and memory they keep, counted from outside
  nocast     ``source_casts``: a bit-level answer's code read against ``allowlist``
  allowlist  the operations a bit-level answer may use

In the learner's own kernel (Validate, self-study) none of this grades: ``learner_side`` and
``owned`` give back the module and the object, and the checks run on the live functions.
"""
