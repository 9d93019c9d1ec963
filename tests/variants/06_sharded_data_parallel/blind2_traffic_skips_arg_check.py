# cell: zero_predictions
# region: 2
# loses: test_zero_predictions
# step_traffic does not call _check_zero_args ("step_memory validates, traffic is just a formula"): stage=4 or 7
# gives the stage-1/2 bytes, world_size=0 raises ZeroDivisionError, dtype=torch.float16 an answer; the contract
# says both functions raise ValueError naming the argument out of range.
width = torch.tensor([], dtype=dtype).element_size()
one_collective = (world_size - 1) * (-(-n_params // world_size)) * width
return (3 if stage == 3 else 2) * one_collective
