# cell: float32_fields
# scores: full
bits = int(np.array(float(x), dtype=np.float64).astype(np.float32).view(np.uint32))
return bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
