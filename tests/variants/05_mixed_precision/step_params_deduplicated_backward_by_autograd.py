# cell: mixed_precision_step
# scores: full
# Gradients zeroed in place, backward through torch.autograd, the optimizer's parameters
# gathered once each (by identity) before unscaling.
for group in optimizer.param_groups:
    for p in group["params"]:
        if p.grad is not None:
            p.grad.zero_()
with torch.autocast(X.device.type, dtype):
    out = model(X)
    loss = loss_fn(out, y)
torch.autograd.backward(scaler.scale(loss))
held = {id(p): p for group in optimizer.param_groups for p in group["params"]}
overflow = bool(scaler.unscale_(list(held.values())))
if overflow:
    scaler.update(True)
    return float(loss), False
optimizer.step()
scaler.update(False)
return float(loss), True
