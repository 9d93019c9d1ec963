# cell: predict_chain
# loses: test_predict_chain
# right on every valid input, but a negative size gives a negative prediction instead of an error
launches = min(int(k), 1) if fused else int(k)
return launches, float(launches * (overhead_s + n * seconds_per_element))
