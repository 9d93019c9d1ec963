# cell: dynamic_loss_scaler
# loses: test_scaler_trajectory
# The good-step count restarts only when the scale actually grows: at FP32's top it keeps
# counting (the scales still match GradScaler's; its count does not).
if bool(found_inf):
    self.scale_value *= self.backoff_factor
    self._growth_tracker = 0
else:
    self._growth_tracker += 1
    if self._growth_tracker >= self.growth_interval:
        grown = self.scale_value * self.growth_factor
        if grown <= FP32_MAX:
            self.scale_value = grown
            self._growth_tracker = 0
