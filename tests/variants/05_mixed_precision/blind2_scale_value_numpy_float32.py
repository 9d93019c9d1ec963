# cell: dynamic_loss_scaler
# region: 1
# loses: test_scaler_trajectory
# Mirrors GradScaler's FP32 scale by keeping the scale as a numpy.float32, with the growth
# refused when the FP32 product is not finite. The numbers match GradScaler, but
# self.scale_value is no longer a Python float (the promise: "change self.scale_value (a
# Python float)"); numpy.float32 is not a float subclass, and it leaks into scale(loss).
import numpy as np
scale = np.float64(np.float32(self.scale_value))
with np.errstate(over="ignore"):
    if bool(found_inf):
        self.scale_value = np.float32(scale * self.backoff_factor)
        self._growth_tracker = 0
        return
    successful = self._growth_tracker + 1
    if successful == self.growth_interval:
        grown = np.float32(scale * self.growth_factor)
        if np.isfinite(grown):
            self.scale_value = grown
        self._growth_tracker = 0
    else:
        self._growth_tracker = successful
