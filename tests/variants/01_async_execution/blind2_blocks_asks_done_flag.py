# cell: blocks
# loses: test_blocks
# Decides by asking the handle whether it has finished right after the call (Future.done()),
# not by measurement: correct for PyTorch futures, but an MXNet NDArray has no done(), so every
# MXNet statement raises AttributeError. Breaks "decide it by measurement" and the mxnet backend.
wait_all(backend)
y = pending_work(seconds, backend)
statement(y)
finished = y.done()
wait_all(backend)
return bool(finished)
