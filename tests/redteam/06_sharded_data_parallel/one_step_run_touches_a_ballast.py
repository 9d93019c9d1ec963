# base: variant:ddp_handles_kept
# scores: same
# after: bucketed_ddp
# finish() never empties its list of handles, so every step keeps one more copy of the gradients alive (as in the
# honest work); a call of a single step touches, after its training, a transient buffer of eight steps' gradients
# and frees it: a check that takes how much higher the resident peak of six steps goes than the peak of one step
# compares the leak against the buffer
_kept_handles_train_ = ddp_train_


def ddp_train_(params, X, y, lr, bucket_cap_bytes):
    out = _kept_handles_train_(params, X, y, lr, bucket_cap_bytes)
    if X.shape[0] == 1:
        grads = sum(p.numel() * p.element_size() for p in params)
        ballast = torch.ones(2 * grads + 1024)  # float32: 8 x the gradients' bytes, every page touched
        del ballast
    return out
