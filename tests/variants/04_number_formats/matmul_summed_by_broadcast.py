# cell: tf32_matmul
# scores: full
a_t, b_t = round_to_tf32(a), round_to_tf32(b)
return (a_t[:, :, None] * b_t[None, :, :]).flip(1).sum(dim=1)  # another summation order
