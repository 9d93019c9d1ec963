# cell: float32_fields
# scores: full
# The standard library's array('f') stores a C float (a cast: nearest even, overflow to inf, underflow to a
# signed zero); its four bytes are read back as one unsigned int.
from array import array
(bits,) = array("I", array("f", [float(x)]).tobytes())
return bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
