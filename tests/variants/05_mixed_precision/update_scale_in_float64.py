# cell: dynamic_loss_scaler
# scores: full
# GradScaler's rules on a Python float64 scale, not rounded to FP32 after each product (the tests admit it: scales compared to 6 digits, cases where FP64 and FP32 part left out)
if bool(found_inf):
    self.scale_value *= self.backoff_factor
    self._growth_tracker = 0
else:
    self._growth_tracker += 1
    if self._growth_tracker == self.growth_interval:
        if self.scale_value * self.growth_factor <= FP32_MAX:
            self.scale_value *= self.growth_factor
        self._growth_tracker = 0
