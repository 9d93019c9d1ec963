# cell: tf32_matmul
# scores: full
# torch.mm: the contract gives two matrices, (M, K) and (K, N).
return torch.mm(round_to_tf32(a), round_to_tf32(b))
