# cell: dynamic_loss_scaler
# region: 1
# scores: full
# Correct, through another valid API: runs GradScaler's own update kernel,
# torch._amp_update_scale_, on a one-element FP32 scale, an int32 tracker and an FP32 flag,
# then stores the results back as a Python float and a Python int. Backoff, growth, the
# refused growth past FP32's largest value and the tracker resets are GradScaler's by
# construction; found_inf is read as a bool (Python bool, int, or one-element tensor).
scale = torch.full((1,), self.scale_value, dtype=torch.float32)
tracker = torch.full((1,), self._growth_tracker, dtype=torch.int32)
flag = torch.full((1,), 1.0 if bool(found_inf) else 0.0, dtype=torch.float32)
torch._amp_update_scale_(scale, tracker, flag, self.growth_factor, self.backoff_factor, self.growth_interval)
self.scale_value = float(scale.item())
self._growth_tracker = int(tracker.item())
