# cell: dynamic_loss_scaler
# loses: test_scaler_trajectory
# "Grow only while the scale stays below FP32's largest value": a strict comparison, so a growth
# that lands exactly on FP32's largest value (finite, and kept by GradScaler) is refused.
if bool(found_inf):
    self.scale_value *= self.backoff_factor
    self._growth_tracker = 0
else:
    self._growth_tracker += 1
    if self._growth_tracker == self.growth_interval:
        grown = self.scale_value * self.growth_factor
        if grown < FP32_MAX:
            self.scale_value = grown
        self._growth_tracker = 0
