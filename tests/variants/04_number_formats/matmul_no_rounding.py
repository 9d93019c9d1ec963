# cell: tf32_matmul
# loses: test_tf32_matmul
return a @ b
