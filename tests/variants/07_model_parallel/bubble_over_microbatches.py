# cell: bubble_fraction
# loses: test_bubble_fraction
return (num_stages - 1) / num_microbatches  # idle time over busy time, not over the whole step
