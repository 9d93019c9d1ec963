# cell: ring_allreduce_
# loses: test_ring_allreduce_
dist.all_reduce(tensor)  # right answer, but the library's collective, not a ring of sends
return tensor
