# cell: dynamic_loss_scaler
# scores: full
# Correct: the growth is refused when the float64 product is above FP32_MAX. GradScaler rounds the
# product to FP32 first, so products within half an FP32 step above FP32_MAX grow it to FP32_MAX;
# the contract admits a scale kept in a Python float, and the test leaves out the cases where the
# two rules part (from 2^127 with growth_factor 2 - 3 * 2^-25 GradScaler grows, this keeps 2^127).
if found_inf:
    self.scale_value *= self.backoff_factor
    self._growth_tracker = 0
    return
self._growth_tracker += 1
if self._growth_tracker == self.growth_interval:
    grown = self.scale_value * self.growth_factor
    if grown <= FP32_MAX:
        self.scale_value = grown
    self._growth_tracker = 0
