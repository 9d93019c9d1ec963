# cell: tf32_matmul
# scores: full
return (round_to_tf32(a).double() @ round_to_tf32(b).double()).float()  # more accurate than FP32 sums
