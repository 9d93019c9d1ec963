# cell: tensor_nbytes
# loses: test_tensor_nbytes
numel = 1
for size in shape:
    numel *= size
return numel * 4
