# cell: tf32_matmul
# loses: test_tf32_matmul
a_t, b_t = round_to_tf32(a), round_to_tf32(b)
out = a_t[:, 0:1] * b_t[0:1, :]  # the first product as the start: no such product when K = 0
for k in range(1, a.shape[1]):
    out = out + a_t[:, k:k + 1] * b_t[k:k + 1, :]  # FP32 accumulator, one rank-1 update at a time
return out
