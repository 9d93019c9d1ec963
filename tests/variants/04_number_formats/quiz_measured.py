# cell: quiz
# scores: full
# measures both answers with PyTorch's casts (TF32 shares FP32's range) instead of writing them down
finite = {name for name, dtype in [("fp32", torch.float32), ("bf16", torch.bfloat16), ("fp16", torch.float16)]
          if bool(torch.isfinite(torch.tensor(70000.0).to(dtype)))}
if "fp32" in finite:
    finite.add("tf32")  # TF32 has FP32's exponent, so FP32's range
one = torch.tensor(1.0, dtype=torch.bfloat16)
u = 1.0
while (one + torch.tensor(u / 2, dtype=torch.bfloat16)).item() != 1.0:
    u /= 2
return {"finite_70000": finite, "bf16_smallest_update": u}
