# cell: dynamic_loss_scaler
# loses: test_scaler_trajectory
# Breaks "do what GradScaler does when a growth would take the scale past FP32's largest value":
# the learner refuses a growth only when the new scale reaches 2^128 ("FP32's exponent ends at
# 2^127"), compared in float64. FP32 rounds every value from FP32_MAX + 2^103 (half an ulp above
# the largest) up to inf, so GradScaler refuses those too: from 2^127 with growth_factor 2 - 2^-24
# it keeps 2^127, this grows to 2^128 - 2^103 (not even an FP32 value). Powers of two agree.
if found_inf:
    self.scale_value *= self.backoff_factor
    self._growth_tracker = 0
    return
self._growth_tracker += 1
if self._growth_tracker == self.growth_interval:
    grown = self.scale_value * self.growth_factor
    if grown < 2.0**128:
        self.scale_value = grown
    self._growth_tracker = 0
