# cell: blocks
# loses: test_blocks
# A table of known blocking calls, matched against the names the statement mentions (its code's
# names for a lambda, its repr for operator.methodcaller / functools.partial): right on every call
# of the notebook's table and the visible test, wrong on any statement it has not seen, e.g.
# operator.attrgetter("wait") (fetches the method, does not call it: non-blocking, but "wait" is
# in the table). Breaks "decide it by measurement".
names = set(getattr(getattr(statement, "__code__", None), "co_names", ()))
names |= set(re.findall(r"[A-Za-z_]\w*", repr(statement)))
blocking = {"wait", "wait_all", "wait_to_read", "waitall", "asnumpy", "asscalar", "print", "item"}
return bool(names & blocking)
