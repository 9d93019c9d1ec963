# cell: float32_fields
# loses: test_float32_fields
import struct

bits = struct.unpack(">I", struct.pack(">f", float(x)))[0]  # OverflowError where FP32 storage gives inf
return bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
