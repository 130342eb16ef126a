"""The standard normal distribution: Φ and Φ⁻¹ (Wichura's AS 241) to double precision.

Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math

#: AS 241's coefficients: numerator and denominator near the centre (_A, _B), in the tails
#: (_C, _D) and far in the tails (_E, _F), lowest power first
_A = (
    3.3871328727963666080e0,
    1.3314166789178437745e2,
    1.9715909503065514427e3,
    1.3731693765509461125e4,
    4.5921953931549871457e4,
    6.7265770927008700853e4,
    3.3430575583588128105e4,
    2.5090809287301226727e3,
)
_B = (
    1.0,
    4.2313330701600911252e1,
    6.8718700749205790830e2,
    5.3941960214247511077e3,
    2.1213794301586595867e4,
    3.9307895800092710610e4,
    2.8729085735721942674e4,
    5.2264952788528545610e3,
)
_C = (
    1.42343711074968357734e0,
    4.63033784615654529590e0,
    5.76949722146069140550e0,
    3.64784832476320460504e0,
    1.27045825245236838258e0,
    2.41780725177450611770e-1,
    2.27238449892691845833e-2,
    7.74545014278341407640e-4,
)
_D = (
    1.0,
    2.05319162663775882187e0,
    1.67638483018380384940e0,
    6.89767334985100004550e-1,
    1.48103976427480074590e-1,
    1.51986665636164571966e-2,
    5.47593808499534494600e-4,
    1.05075007164441684324e-9,
)
_E = (
    6.65790464350110377720e0,
    5.46378491116411436990e0,
    1.78482653991729133580e0,
    2.96560571828504891230e-1,
    2.65321895265761230930e-2,
    1.24266094738807843860e-3,
    2.71155556874348757815e-5,
    2.01033439929228813265e-7,
)
_F = (
    1.0,
    5.99832206555887937690e-1,
    1.36929880922735805310e-1,
    1.48753612908506148525e-2,
    7.86869131145613259100e-4,
    1.84631831751005468180e-5,
    1.42151175831644588870e-7,
    2.04426310338993978564e-15,
)


def check_unit(name: str, value: float) -> float:
    """``value`` as a float in [0, 1], else :class:`ValueError` naming it."""
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return value


def norm_cdf(x: float) -> float:
    """Standard normal distribution function Φ(x), accurate in both tails."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def norm_ppf(q: float) -> float:
    """Standard normal quantile Φ⁻¹(q) (Wichura 1988, AS 241 PPND16; ~1e-16 relative).

    ``norm_ppf(0) = -inf``, ``norm_ppf(1) = inf``; :class:`ValueError` outside ``[0, 1]``.
    """
    q = check_unit("q", q)
    if q == 0.0:
        return -math.inf
    if q == 1.0:
        return math.inf
    d = q - 0.5
    if abs(d) <= 0.425:
        r = 0.180625 - d * d
        return d * _poly(r, _A) / _poly(r, _B)
    r = q if d < 0.0 else 1.0 - q
    r = math.sqrt(-math.log(r))
    if r <= 5.0:
        value = _poly(r - 1.6, _C) / _poly(r - 1.6, _D)
    else:
        value = _poly(r - 5.0, _E) / _poly(r - 5.0, _F)
    return -value if d < 0.0 else value


def _poly(r: float, coefficients: tuple[float, ...]) -> float:
    """``c0 + c1 r + c2 r² + …`` by Horner's rule."""
    total = 0.0
    for c in reversed(coefficients):
        total = total * r + c
    return total
