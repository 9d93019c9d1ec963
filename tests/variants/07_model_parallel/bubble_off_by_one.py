# cell: bubble_fraction
# loses: test_bubble_fraction
return num_stages / (num_microbatches + num_stages)  # counts p fill steps instead of p - 1
