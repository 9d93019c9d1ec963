# cell: format_limits
# loses: test_format_limits
from fractions import Fraction

two, bias = Fraction(2), 2 ** (exponent_bits - 1) - 1
return {  # exact, but Fractions, not the floats the contract asks for
    "eps": two ** -mantissa_bits,
    "max": (2 - two ** -mantissa_bits) * two ** bias,
    "min_normal": two ** (1 - bias),
    "min_subnormal": two ** (1 - bias - mantissa_bits),
}
