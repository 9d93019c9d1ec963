# cell: blocks
# honest but incomplete work: blocks() measures PyTorch futures right and refuses the MXNet back end
if backend != "torch":
    raise NotImplementedError("blocks() handles only the PyTorch back end")
wait_all(backend)
y = pending_work(seconds, backend)
start = time.perf_counter()
statement(y)
called = time.perf_counter() - start
wait_all(backend)
total = time.perf_counter() - start
return called > 0.5 * total
