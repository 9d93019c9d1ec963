# cell: dynamic_loss_scaler
# region: 1
# loses: test_scaler_trajectory
# Grows when the good-step count is a multiple of growth_interval, and never resets the count
# at a growth (only an overflow resets it). The scale follows GradScaler step for step, but
# self._growth_tracker does not: it reads growth_interval, growth_interval + 1, ... after a
# growth where GradScaler's is 0, 1, ... (the promise: change the good-step counter
# _growth_tracker exactly as GradScaler does; a checkpoint of it would be wrong).
if bool(found_inf):
    self.scale_value = float(torch.tensor(self.scale_value * self.backoff_factor, dtype=torch.float32))
    self._growth_tracker = 0
    return
self._growth_tracker += 1
if self._growth_tracker % self.growth_interval == 0:
    grown = float(torch.tensor(self.scale_value * self.growth_factor, dtype=torch.float32))
    if math.isfinite(grown):
        self.scale_value = grown
