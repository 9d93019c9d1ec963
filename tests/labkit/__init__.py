"""labkit's learner-facing modules: devices, timing, workers, data, checks, widgets, validation."""
