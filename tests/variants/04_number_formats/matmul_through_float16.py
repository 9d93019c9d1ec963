# cell: tf32_matmul
# loses: test_tf32_matmul
return a.half().float() @ b.half().float()  # 10 mantissa bits too, but FP16's 5-bit exponent
