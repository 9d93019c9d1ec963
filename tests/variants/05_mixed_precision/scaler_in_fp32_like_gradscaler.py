# cell: dynamic_loss_scaler
# scores: full
# The scale kept as GradScaler keeps it: FP32 arithmetic, a growth kept only if finite in FP32.
scale = torch.tensor(self.scale_value, dtype=torch.float32)
if bool(found_inf):
    self.scale_value = float(scale * self.backoff_factor)
    self._growth_tracker = 0
    return
self._growth_tracker = (self._growth_tracker + 1) % self.growth_interval
if self._growth_tracker == 0:
    grown = scale * self.growth_factor
    if bool(torch.isfinite(grown)):
        self.scale_value = float(grown)
