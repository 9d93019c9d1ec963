# cell: dynamic_loss_scaler
# loses: test_scaler_trajectory
# halves the scale on overflow whatever backoff_factor says (GradScaler's default hard-coded)
if bool(found_inf):
    self.scale_value *= 0.5
    self._growth_tracker = 0
else:
    self._growth_tracker += 1
    if self._growth_tracker == self.growth_interval:
        grown = self.scale_value * self.growth_factor
        if grown <= FP32_MAX:
            self.scale_value = grown
        self._growth_tracker = 0
