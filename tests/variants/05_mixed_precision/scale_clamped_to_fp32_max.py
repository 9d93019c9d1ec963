# cell: dynamic_loss_scaler
# loses: test_scaler_trajectory
if bool(found_inf):
    self.scale_value *= self.backoff_factor
    self._growth_tracker = 0
else:
    self._growth_tracker += 1
    if self._growth_tracker == self.growth_interval:
        self.scale_value = min(self.scale_value * self.growth_factor, torch.finfo(torch.float32).max)
        self._growth_tracker = 0
