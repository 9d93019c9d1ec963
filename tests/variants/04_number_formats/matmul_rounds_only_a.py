# cell: tf32_matmul
# loses: test_tf32_matmul
return round_to_tf32(a) @ b
