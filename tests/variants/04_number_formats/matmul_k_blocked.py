# cell: tf32_matmul
# scores: full
# rounds with round_to_tf32, then adds the products block by block of 16 along K, every partial sum in FP32 (another summation order)
ra, rb = round_to_tf32(a), round_to_tf32(b)
out = ra.new_zeros(ra.shape[0], rb.shape[1])
for k0 in range(0, ra.shape[1], 16):
    out += ra[:, k0:k0 + 16] @ rb[k0:k0 + 16, :]
return out
