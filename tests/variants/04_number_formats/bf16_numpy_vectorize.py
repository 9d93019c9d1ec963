# cell: round_to_bf16
# loses: test_round_to_bf16_random test_round_to_bf16_special test_round_to_bf16_no_cast
def one(b):  # the unsigned 32-bit pattern of one value
    if (b & 0x7F800000) == 0x7F800000 and b & 0x7FFFFF:
        return b  # NaN stays as it is
    return (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000


bits = x.numpy().view(np.uint32)
out = np.vectorize(one)(bits)  # np.vectorize refuses an empty array (no otypes given)
return torch.from_numpy(np.asarray(out).astype(np.uint32).view(np.float32))
