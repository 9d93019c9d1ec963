# cell: mixed_precision_step
# loses: test_mixed_precision_step
# Breaks "the forward pass ... `loss_fn(model(X), y)` runs under autocast in dtype (the
# parameters stay FP32)": the learner also casts the input to dtype ("a low-precision forward
# takes low-precision inputs") and runs model(X.to(dtype)) under autocast. For a model that
# starts with a Linear layer (the digits MLP) autocast casts X to dtype anyway and nothing
# changes; an integer X (token ids for an Embedding) becomes floats and crashes, and a model whose
# first op autocast keeps in FP32 or in the input's dtype (LayerNorm, softmax, an elementwise
# op) now sees a rounded input.
params = [p for group in optimizer.param_groups for p in group["params"]]
optimizer.zero_grad(set_to_none=True)
model.zero_grad(set_to_none=True)
with torch.autocast(device_type=X.device.type, dtype=dtype):
    loss = loss_fn(model(X.to(dtype)), y)
scaler.scale(loss).backward()
found_inf = bool(scaler.unscale_(params))
if not found_inf:
    optimizer.step()
scaler.update(found_inf)
return loss.item(), not found_inf
