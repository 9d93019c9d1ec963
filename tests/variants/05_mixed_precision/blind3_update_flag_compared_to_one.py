# cell: dynamic_loss_scaler
# loses: test_scaler_trajectory
# Breaks "read found_inf as a bool": the flag is compared with 1. True, 1, 1.0 and tensor([1.])
# all work, but a flag that counts overflows (GradScaler's found_inf is a float tensor it adds up
# over devices, so 2.0 is a real value; or 2, or any nonzero count) reads as "no overflow": the
# scale grows instead of backing off. Everything else follows GradScaler exactly.
if found_inf == 1:
    self.scale_value *= self.backoff_factor
    self._growth_tracker = 0
    return
self._growth_tracker += 1
if self._growth_tracker == self.growth_interval:
    grown = self.scale_value * self.growth_factor
    if bool(torch.tensor(grown, dtype=torch.float32).isfinite()):  # as GradScaler's FP32 scale
        self.scale_value = grown
    self._growth_tracker = 0
