# cell: bubble_fraction
# scores: full
# One minus the busy share: each stage works m slots of the m + p - 1 the step lasts.
return 1.0 - num_microbatches / (num_microbatches + num_stages - 1)
