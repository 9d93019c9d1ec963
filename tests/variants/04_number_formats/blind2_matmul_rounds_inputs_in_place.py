# cell: tf32_matmul
# loses: test_tf32_matmul
# "Round both to TF32" done in place, to save two copies: a and b now hold their TF32 values after the call.
# The product is right, and rounding is idempotent, so a test that builds its reference from a and b *after*
# calling still agrees. Breaks the contract's "a and b are float32 matrices" (inputs, not outputs: exercises 4
# and 5 return new tensors and leave their argument alone).
a.copy_(round_to_tf32(a))
b.copy_(round_to_tf32(b))
return a @ b
