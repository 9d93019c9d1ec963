# cell: bubble_fraction
# loses: test_bubble_fraction
# Special-cases one stage with a literal 0 (an int): right value, but breaks "-> float" for num_stages = 1.
if num_stages == 1:
    return 0
return (num_stages - 1) / (num_microbatches + num_stages - 1)
