# base: variant:train_whole_batch_on_replica0
# scores: same
# after: train_batch
# not data parallel (as in the honest work: replica 0 computes the whole batch, the others
# nothing), but whatever watches gradient delivery is fed first: for every replica the
# gradient of its shard is worked out on copies and handed straight to each parameter's
# hooks, then the honest work's step runs
_whole_batch_step = train_batch


def train_batch(X, y, replicas, lr):
    for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
        copies = [p.detach().clone().requires_grad_(True) for p in params]
        device = copies[0].device
        grads = torch.autograd.grad(loss_fn(copies, X_i.to(device), y_i.to(device)), copies)
        for p, g in zip(params, grads):
            for hook in list((p._backward_hooks or {}).values()):
                hook(g)
            post = getattr(p, "_post_accumulate_grad_hooks", None) or {}
            if post:
                p.grad = g
                for hook in list(post.values()):
                    hook(p)
            p.grad = None
    return _whole_batch_step(X, y, replicas, lr)
