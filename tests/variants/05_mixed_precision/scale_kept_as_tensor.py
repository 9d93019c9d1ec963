# cell: dynamic_loss_scaler
# loses: test_scaler_trajectory
# The scale held as GradScaler holds it, an FP32 tensor, but never turned back into a Python float.
scale = torch.as_tensor(self.scale_value, dtype=torch.float32)
if bool(found_inf):
    self.scale_value = scale * self.backoff_factor
    self._growth_tracker = 0
else:
    self._growth_tracker += 1
    if self._growth_tracker == self.growth_interval:
        grown = scale * self.growth_factor
        if bool(torch.isfinite(grown)):
            self.scale_value = grown
        self._growth_tracker = 0
