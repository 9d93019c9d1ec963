# cell: mixed_precision_step
# scores: full
# sets every grad the optimizer holds to None, unscales a chained generator of its groups' parameters, steps only when all are finite
import itertools

for group in optimizer.param_groups:
    for p in group["params"]:
        p.grad = None
with torch.autocast(device_type=X.device.type, dtype=dtype, enabled=True):
    out = model(X)
    loss = loss_fn(out, y)
scaler.scale(loss).backward()
found_inf = bool(scaler.unscale_(itertools.chain.from_iterable(g["params"] for g in optimizer.param_groups)))
stepped = not found_inf
if stepped:
    optimizer.step()
scaler.update(found_inf)
return float(loss.detach()), stepped
