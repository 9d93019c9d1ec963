# cell: tf32_matmul
# scores: full
a_t, b_t = round_to_tf32(a), round_to_tf32(b)
out = torch.zeros(a.shape[0], b.shape[1])  # an explicit FP32 accumulator
for k in range(a.shape[1]):
    out += a_t[:, k:k + 1] * b_t[k:k + 1, :]
return out
