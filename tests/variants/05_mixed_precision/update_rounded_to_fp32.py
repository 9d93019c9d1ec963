# cell: dynamic_loss_scaler
# scores: full
# GradScaler's kernel in Python: product in float64, rounded to FP32 once, growth kept only if that FP32 value is finite
def to_fp32(v):
    return float(torch.tensor(v, dtype=torch.float64).to(torch.float32))
if bool(found_inf):
    self.scale_value = to_fp32(self.scale_value * self.backoff_factor)
    self._growth_tracker = 0
else:
    self._growth_tracker += 1
    if self._growth_tracker == self.growth_interval:
        grown = to_fp32(self.scale_value * self.growth_factor)
        if math.isfinite(grown):
            self.scale_value = grown
        self._growth_tracker = 0
