# cell: dynamic_loss_scaler
# region: 1
# loses: test_scaler_trajectory
# Backs off by undoing one growth (scale / growth_factor) instead of multiplying by
# backoff_factor. With GradScaler's defaults (2 and 0.5) the two are the same, so every
# default-argument trajectory matches; with any other pair (backoff_factor=0.25, or
# growth_factor=4) the scale after an overflow is wrong (the promise: after an overflow,
# S *= backoff_factor).
if bool(found_inf):
    self.scale_value = float(torch.tensor(self.scale_value / self.growth_factor, dtype=torch.float32))
    self._growth_tracker = 0
    return
successful = self._growth_tracker + 1
if successful == self.growth_interval:
    grown = float(torch.tensor(self.scale_value * self.growth_factor, dtype=torch.float32))
    if math.isfinite(grown):
        self.scale_value = grown
    self._growth_tracker = 0
else:
    self._growth_tracker = successful
