# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
# Closed form with integer rounds and no validation of n: for n = 0 or negative n, (n - 1).bit_length() is still
# defined and the "never faster" branch returns 0.0. Breaks "Raise ValueError naming the argument for n < 1".
rounds = (n - 1).bit_length()
gain = n - 1 - rounds
if gain <= 0:
    return 0.0
return alpha * gain * n / (beta * (rounds * n - (n - 1)))
