# cell: round_to_bf16
# loses: test_round_to_bf16_special
# rounds the magnitude and puts the sign back where x < 0: -0.0 is not < 0, so it comes back as +0.0
bits = x.view(torch.int32)
mag = bits & 0x7FFFFFFF
rounded = (mag + 0x7FFF + ((mag >> 16) & 1)) & -0x10000
rounded = torch.where(x < 0, rounded | -0x80000000, rounded)
return torch.where(torch.isnan(x), bits, rounded).view(torch.float32)
