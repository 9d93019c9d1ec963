# cell: format_limits
# scores: full
from fractions import Fraction

bias = 2 ** (exponent_bits - 1) - 1
exact = {
    "eps": Fraction(1, 2 ** mantissa_bits),
    "max": Fraction(2 ** (bias + 1) - 2 ** (bias - mantissa_bits)) if bias >= mantissa_bits
    else Fraction(2 ** (mantissa_bits + 1) - 1, 2 ** (mantissa_bits - bias)),
    "min_normal": Fraction(2) ** (1 - bias),
    "min_subnormal": Fraction(2) ** (1 - bias - mantissa_bits),
}
return {name: float(value) for name, value in exact.items()}  # exact arithmetic, floats out
