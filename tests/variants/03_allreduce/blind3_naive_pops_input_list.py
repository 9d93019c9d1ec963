# cell: naive_allreduce
# loses: test_naive_allreduce
# "Worker 0 receives every other worker's buffer": modelled by popping them off the caller's list, which leaves the
# caller's `buffers` list empty. Breaks "leave the inputs untouched" at the container level (every tensor is
# unchanged; a check that zips the list after the call with the one before sees nothing to compare).
n = len(buffers)
total = buffers.pop(0).clone()
while buffers:
    total += buffers.pop()
return [total.clone() for _ in range(n)]
