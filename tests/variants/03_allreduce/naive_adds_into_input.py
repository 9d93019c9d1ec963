# cell: naive_allreduce
# loses: test_naive_allreduce
total = buffers[0]  # aliasing: worker 0's input becomes the running sum
for b in buffers[1:]:
    total += b
return [total.clone() for _ in buffers]
