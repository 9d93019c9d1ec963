# cell: mixed_precision_step
# scores: full
# Correct, another order of work: zero the gradients to zeros (set_to_none=False) on the
# optimizer and the model, forward and loss under autocast on X's device in dtype, scaled
# backward outside it, unscale every parameter of every group once (itertools.chain over the
# groups, materialised), update the scaler with the flag BEFORE the optimizer step (the
# gradients are unscaled already, so the new scale does not touch them), then step unless the
# flag is set. Returns (Python float, Python bool).
import itertools

optimizer.zero_grad(set_to_none=False)
model.zero_grad(set_to_none=False)
device_type = X.device.type
with torch.autocast(device_type=device_type, dtype=dtype):
    output = model(X)
    loss = loss_fn(output, y)
scaler.scale(loss).backward()
held = list(itertools.chain.from_iterable(group["params"] for group in optimizer.param_groups))
overflow = bool(scaler.unscale_(held))
scaler.update(overflow)
if not overflow:
    optimizer.step()
return float(loss.detach()), not overflow
