# cell: dynamic_loss_scaler
# loses: test_scaler_trajectory
# counts the step and grows before looking at found_inf: an overflow on the growth_interval-th step grows, then backs off
self._growth_tracker += 1
if self._growth_tracker == self.growth_interval:
    grown = self.scale_value * self.growth_factor
    if grown <= FP32_MAX:
        self.scale_value = grown
    self._growth_tracker = 0
if bool(found_inf):
    self.scale_value *= self.backoff_factor
    self._growth_tracker = 0
