# cell: tensor_nbytes
# loses: test_tensor_nbytes
numel = 1
for size in shape:
    numel *= size
info = torch.finfo(dtype) if dtype.is_floating_point or dtype.is_complex else torch.iinfo(dtype)
return numel * info.bits // 8  # bool has no iinfo; complex64's finfo is its real part's
