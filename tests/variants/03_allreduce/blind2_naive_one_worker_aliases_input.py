# cell: naive_allreduce
# loses: test_naive_allreduce
# Starts the running total from buffers[0] itself (out of place adds afterwards, so N > 1 is right), and hands
# worker 0 the total uncopied: with one worker the returned tensor IS the input buffer.
# Breaks: "Return ... new tensors" / own memory, no returned tensor may share memory with an input (N=1 only).
total = buffers[0]
for b in buffers[1:]:
    total = total + b
return [total] + [total.clone() for _ in buffers[1:]]
