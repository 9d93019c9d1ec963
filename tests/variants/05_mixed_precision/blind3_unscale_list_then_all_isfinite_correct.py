# cell: unscale_grads
# scores: full
# Correct, another style: collect the gradients into a list once (the iterable may be a
# one-shot generator), divide every one in place under no_grad, then check them all with one
# all(...) over the list; an empty list gives False. Returns a Python bool.
grads = [p.grad for p in params if p.grad is not None]
with torch.no_grad():
    for g in grads:
        g.div_(scale)
return not all(bool(torch.isfinite(g).all()) for g in grads)
