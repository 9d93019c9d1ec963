# cell: float32_fields
# scores: full
import struct

x = float(x)
try:
    bits = struct.unpack(">I", struct.pack(">f", x))[0]  # rounds to nearest even like a cast
except OverflowError:  # struct refuses exactly the values that round to inf
    bits = 0xFF800000 if x < 0 else 0x7F800000
return bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
