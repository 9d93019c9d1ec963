# cell: tf32_matmul
# scores: full
# Correct, in another style: the rounded inputs multiplied with torch.einsum, which sums the K products in float32
# (in some order, within the FP32 summation bound), and returns float32.
ra, rb = round_to_tf32(a), round_to_tf32(b)
return torch.einsum("mk,kn->mn", ra, rb)
