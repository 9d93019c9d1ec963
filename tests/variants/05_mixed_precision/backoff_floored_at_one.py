# cell: dynamic_loss_scaler
# loses: test_scaler_trajectory
# "A loss scale below 1 makes no sense": the backoff stops at 1.0 (GradScaler has no such floor).
if bool(found_inf):
    self.scale_value = max(self.scale_value * self.backoff_factor, 1.0)
    self._growth_tracker = 0
else:
    self._growth_tracker += 1
    if self._growth_tracker == self.growth_interval:
        grown = self.scale_value * self.growth_factor
        if grown <= FP32_MAX:
            self.scale_value = grown
        self._growth_tracker = 0
