"""Special functions behind the interval methods, in pure Python (``math`` only), each to
relative accuracy far into the tails: ``ln B``, the regularised incomplete beta and its
inverse, the normal quantile Φ⁻¹ (Wichura's AS 241) and the binomial distribution.
Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math

_LN_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: From this argument on the Stirling series (7 terms) is accurate to ~1e-17 absolute.
_STIRLING_MIN = 10.0
_EPS = 2.220446049250313e-16
_TINY = 1e-300
#: Most continued-fraction terms evaluated before giving up. Near the mean the fraction needs
#: roughly (a + b)^⅓ terms: ~80 at 1e5, ~2,500 at 1e8, ~55,000 at 1e12, ~10^6 at 1e16.
_CF_MAX_TERMS = 2_000_000

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


def _shapes(a: float, b: float) -> tuple[float, float]:
    for name, value in (("a", a), ("b", b)):
        if not (float(value) > 0.0 and math.isfinite(float(value))):
            raise ValueError(f"{name} must be a finite number > 0, got {float(value)!r}")
    return float(a), float(b)


def _stirling_error(z: float) -> float:
    """``ln Γ(z) − [(z − ½) ln z − z + ½ ln 2π]`` for ``z > 0``."""
    if z < _STIRLING_MIN:
        return math.lgamma(z) - ((z - 0.5) * math.log(z) - z + _LN_SQRT_2PI)
    r = 1.0 / z
    r2 = r * r
    inner = r2 / 156.0  # the series' terms, innermost first (Horner's rule in 1/z²)
    for c in (691.0 / 360360.0, 1.0 / 1188.0, 1.0 / 1680.0, 1.0 / 1260.0, 1.0 / 360.0):
        inner = r2 * (c - inner)
    return r * (1.0 / 12.0 - inner)


def _lgamma_ratio(a: float, b: float) -> float:
    """``ln Γ(b) − ln Γ(a + b)`` for ``b ≥ 10``, without cancelling two large values."""
    return (
        -a * math.log(b)
        - (a + b - 0.5) * math.log1p(a / b)
        + a
        + _stirling_error(b)
        - _stirling_error(a + b)
    )


def log_beta(a: float, b: float) -> float:
    """``ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b)`` for ``a, b > 0``.

    Accurate to a few ulps of the result (or ~1e-15 absolute near zero) for any magnitudes:
    the large parts of the three log-gammas cancel analytically, not numerically.
    """
    return _log_beta(*_shapes(a, b))


def _log_beta(a: float, b: float) -> float:
    if a > b:
        a, b = b, a
    if b < _STIRLING_MIN:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    if a < _STIRLING_MIN:
        return math.lgamma(a) + _lgamma_ratio(a, b)
    s = a + b
    return (
        (a - 0.5) * math.log(a / s)
        + b * math.log1p(-a / s)
        - 0.5 * math.log(b)
        + _LN_SQRT_2PI
        + _stirling_error(a)
        + _stirling_error(b)
        - _stirling_error(s)
    )


def _two_product(u: float, v: float) -> tuple[float, float]:
    """``(p, e)`` with ``p = fl(u·v)`` and ``p + e = u·v`` exactly (Dekker/Veltkamp)."""
    p = u * v
    c = 134217729.0 * u  # 2^27 + 1
    uh = c - (c - u)
    ul = u - uh
    c = 134217729.0 * v
    vh = c - (c - v)
    vl = v - vh
    return p, ((uh * vh - p) + uh * vl + ul * vh) + ul * vl


def _lambda(a: float, b: float, x: float, y: float) -> float:
    """``λ = a − (a + b) x = (a + b) y − b`` to (nearly) full relative precision.

    Computed from the exact one of ``x``, ``y`` (the one at most ½) with an exact product and
    an exact sum ``a + b``; ``λ`` governs the cancellation in the prefactor and in the
    continued fraction near the mean ``a/(a + b)``.
    """
    s = a + b
    bb = s - a
    s_err = (a - (s - bb)) + (b - bb)  # a + b = s + s_err exactly
    if x <= 0.5:
        p, p_err = _two_product(x, s)
        return (a - p) - (p_err + x * s_err)
    p, p_err = _two_product(y, s)
    return (p - b) + (p_err + y * s_err)


def _rlog1(w: float) -> float:
    """``w − ln(1 + w)`` for ``w > −1``, accurate also for small ``|w|``."""
    if -0.5 <= w <= 0.5:
        # ln(1+w) = 2 atanh(r) with r = w/(2+w); w − ln(1+w) = 2r²/(1−r) − 2(r³/3 + r⁵/5 + …)
        r = w / (2.0 + w)
        r2 = r * r
        term = r * r2
        series = 0.0
        k = 3.0
        while True:
            add = term / k
            series += add
            if abs(add) <= 1e-17 * abs(series):
                break
            term *= r2
            k += 2.0
        return 2.0 * r2 / (1.0 - r) - 2.0 * series
    return w - math.log1p(w)


def _log_front_term(c: float, w: float, ln_z: float, s: float) -> float:
    """``c (ln(1 + w) − w)`` where ``1 + w = z s / c`` and ``ln_z = ln z``."""
    if w < -0.5:  # 1 + w is small and carries the rounding of w: use ln z directly
        return c * (ln_z + math.log(s / c) - w)
    return -c * _rlog1(w)


def _log_front(a: float, b: float, x: float, y: float) -> float:
    """``ln[x^a y^b / B(a, b)]`` for ``0 < x < 1`` and ``y = 1 − x``.

    Whichever of ``x``, ``y`` is at most ½ must be exact (the other may carry the rounding of
    ``1 − ·``): every term is computed from that one.
    """
    ln_x = math.log(x) if x <= 0.5 else math.log1p(-y)
    ln_y = math.log(y) if y <= 0.5 else math.log1p(-x)
    if a < _STIRLING_MIN or b < _STIRLING_MIN:
        return a * ln_x + b * ln_y - _log_beta(a, b)
    # ln B = a ln(a/s) + b ln(b/s) + ½ ln(s/(ab)) + ½ ln 2π + Δ, so with 1+u = xs/a and
    # 1+v = ys/b (a u + b v = 0): a ln x + b ln y − ln B
    #   = a(ln(1+u) − u) + b(ln(1+v) − v) + ½ ln(ab/s) − ½ ln 2π − Δ.
    s = a + b
    lam = _lambda(a, b, x, y)  # = −a u = b v
    u = -lam / a
    v = lam / b
    delta = _stirling_error(a) + _stirling_error(b) - _stirling_error(s)
    return (
        _log_front_term(a, u, ln_x, s)
        + _log_front_term(b, v, ln_y, s)
        + 0.5 * (math.log(a) + math.log(b / s))
        - _LN_SQRT_2PI
        - delta
    )


def _betacf(a: float, b: float, x: float, y: float) -> float:
    """Continued fraction ``T`` with ``I_x(a, b) = T · x^a y^b / (a B(a, b))``.

    This is the even contraction of the classical fraction (Numerical Recipes §6.4)
    ``1/(1 + d1/(1 + d2/(1 + …)))`` with ``d(2m+1) = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1))`` and
    ``d(2m) = m(b−m)x / ((a+2m−1)(a+2m))``: ``T = 1/(β0 + α1/(β1 + α2/(β2 + …)))`` with

    * ``α_m = −d(2m−1) d(2m) = m(b−m)(a+m−1)(a+b+m−1) x² / ((a+2m−2)(a+2m−1)²(a+2m))``,
    * ``β_m = 1 + d(2m) + d(2m+1) = [(a−1)(1+λ) + 2m(a+m)(2−x)] / ((a+2m−1)(a+2m+1))``,
      ``λ = a − (a+b)x``.

    Written with ``λ`` and ``2 − x = 1 + y`` the denominators have no cancellation even when
    ``x`` is next to 1 (where the classical form loses ~``log10(1/y)`` digits). ``λ`` is taken
    from the exact one of ``x``, ``y`` (the one at most ½). Converges quickly for
    ``x < (a + 1)/(a + b + 2)``; evaluated by the modified Lentz method.
    """
    s = a + b
    lam = _lambda(a, b, x, y)
    two_minus_x = 2.0 - x if x <= 0.5 else 1.0 + y
    am1 = a - 1.0
    base = am1 * (1.0 + lam)
    xx = x * x
    f = (1.0 + lam) / (a + 1.0)  # β0
    if abs(f) < _TINY:
        f = _TINY
    c = f
    d = 0.0
    for m in range(1, _CF_MAX_TERMS):
        a2m = a + 2.0 * m
        # (a+m−1)/(a+2m−2) is exactly 1 at m = 1 (and a + 2 − 2 may round to 0 for tiny a)
        ratio = 1.0 if m == 1 else (a + m - 1.0) / (a2m - 2.0)
        alpha = m * (b - m) * ratio * (s + m - 1.0) * xx / ((a2m - 1.0) ** 2 * a2m)
        beta = (base + 2.0 * m * (a + m) * two_minus_x) / ((a2m - 1.0) * (a2m + 1.0))
        d = beta + alpha * d
        if abs(d) < _TINY:
            d = _TINY
        c = beta + alpha / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        step = c * d
        f *= step
        if abs(step - 1.0) <= _EPS:
            return 1.0 / f
    raise ArithmeticError(f"incomplete beta continued fraction did not converge (a={a}, b={b})")


def _log1mexp(v: float) -> float:
    """``ln(1 − e^v)`` for ``v ≤ 0`` (−inf when ``e^v`` rounds to 1)."""
    if v >= 0.0:
        return -math.inf
    if v > -0.6931471805599453:
        m = -math.expm1(v)
        return math.log(m) if m > 0.0 else -math.inf
    return math.log1p(-math.exp(v))


def _ibeta_log(a: float, b: float, x: float, y: float, upper: bool) -> tuple[float, float]:
    """``(ln T, ln front)`` with ``T = I_x(a, b)`` (or ``1 − I_x(a, b)`` when ``upper``),
    ``0 < x < 1``, ``y = 1 − x``, ``front = x^a y^b / B(a, b)``."""
    front = _log_front(a, b, x, y)
    direct_is_upper = x >= (a + 1.0) / (a + b + 2.0)  # (where the fraction converges fast)
    if direct_is_upper:
        direct = front + math.log(_betacf(b, a, y, x)) - math.log(b)
    else:
        direct = front + math.log(_betacf(a, b, x, y)) - math.log(a)
    if direct_is_upper == upper:
        return min(direct, 0.0), front
    return _log1mexp(direct), front


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta ``I_x(a, b)`` (as ``scipy.special.betainc``).

    Relative accuracy about ``(10 + |ln I|) · 2e-15`` (so ~1e-14 for ordinary values, ~1e-12
    near the underflow limit) for ``a, b`` from 0.01 to 1e5 and beyond (1e12 needs ~50,000
    terms), including ``x`` next to 0 or 1. Below ``a, b ≈ 0.01`` a tail that is computed as
    ``1 − (value near 1)`` keeps only ~1e-15 absolute accuracy. Raises :class:`ValueError`
    unless ``a, b > 0`` and ``0 ≤ x ≤ 1``.
    """
    return _incomplete(a, b, x, upper=False)


def betaincc(a: float, b: float, x: float) -> float:
    """Complemented incomplete beta ``1 − I_x(a, b)`` without cancellation (``betaincc``);
    accuracy and argument checks as :func:`betainc`."""
    return _incomplete(a, b, x, upper=True)


def _incomplete(a: float, b: float, x: float, upper: bool) -> float:
    a, b = _shapes(a, b)
    x = check_unit("x", x)
    if x in (0.0, 1.0):
        return 1.0 if (x == 1.0) != upper else 0.0
    return math.exp(_ibeta_log(a, b, x, 1.0 - x, upper)[0])


def _initial_guess(a: float, b: float, upper: bool, ln_p: float, p: float) -> float:
    """A starting point for :func:`_solve_tail` (its arguments); accuracy only affects speed."""
    if not upper:
        # I_t(a, b) ≈ t^a / (a B(a, b)) while b·t is small
        t = math.exp(min((ln_p + math.log(a) + _log_beta(a, b)) / a, 0.0))
        if b * t < 0.2:
            return t
    if a > 0.5 and b > 0.5:
        # Abramowitz & Stegun 26.5.22 (normal approximation on a log-odds scale)
        y = norm_ppf(p) if upper else -norm_ppf(p)
        lam = (y * y - 3.0) / 6.0
        h = 2.0 / (1.0 / (2.0 * a - 1.0) + 1.0 / (2.0 * b - 1.0))
        if h + lam > 0.0:
            w = y * math.sqrt(h + lam) / h - (1.0 / (2.0 * b - 1.0) - 1.0 / (2.0 * a - 1.0)) * (
                lam + 5.0 / 6.0 - 2.0 / (3.0 * h)
            )
            if w < 350.0:
                t = a / (a + b * math.exp(2.0 * w))
                if 0.0 < t < 0.5:
                    return t
    return 0.25 * min(a / (a + b), 1.0)


def _solve_tail(a: float, b: float, upper: bool, ln_p: float, p: float) -> float:
    """The ``t`` in ``(0, ½]`` with ``ln T(t) = ln_p``, ``T`` = lower (or upper) tail of
    Beta(a, b) at ``t``; the caller guarantees that the root is at most ½.

    Halley's method on ``h(s) = ±(ln T(e^s) − ln_p)`` in ``s = ln t`` (nearly linear in the
    tails), applied multiplicatively to ``t`` so that ``t`` keeps full relative precision,
    inside a bracket that is bisected (in ``s``) whenever a step would leave it. With
    ``g = d ln T/ds = ±front/((1 − t) T)``: ``h' = |g|`` and
    ``h''/h' = a − (b − 1) t/(1 − t) − g``.
    """
    sign = -1.0 if upper else 1.0  # makes h increasing in t
    lo, hi = 5e-324, 0.5  # h(hi) ≥ 0 by the caller; h(lo) < 0 unless the root underflows
    t = min(max(_initial_guess(a, b, upper, ln_p, p), 1e-300), 0.5)
    for _ in range(300):
        ln_tail, ln_front = _ibeta_log(a, b, t, 1.0 - t, upper)
        h = sign * (ln_tail - ln_p)
        if h == 0.0:
            return t
        if h < 0.0:
            lo = t
        else:
            hi = t
        step = math.nan
        if ln_tail != -math.inf:
            ratio = ln_front - math.log1p(-t) - ln_tail
            if -700.0 < ratio < 700.0:
                slope = math.exp(ratio)  # h'(s) = |g|
                newton = -h / slope
                curvature = a - (b - 1.0) * t / (1.0 - t) - sign * slope  # h''/h'
                denominator = 1.0 + 0.5 * newton * curvature
                step = newton / denominator if denominator > 0.5 else newton
        if abs(step) <= 4.0 * _EPS:  # converged: the step is at the rounding level of t
            return t
        candidate = t * math.exp(step) if abs(step) < 700.0 else math.nan
        if lo < candidate < hi:
            if abs(step) < 1e-9:  # cubic convergence: the next step would be below an ulp
                return candidate
        else:
            if hi <= 1e-300 and lo == 5e-324:
                # the root may lie below the smallest double
                lt, _ = _ibeta_log(a, b, lo, 1.0, upper)
                if sign * (lt - ln_p) >= 0.0:
                    return 0.0
            candidate = math.exp(0.5 * (math.log(lo) + math.log(hi)))  # bisect in ln t
            if not lo < candidate < hi:
                return t
        if hi - lo <= 2.0 * _EPS * hi:
            return candidate
        t = candidate
    return t


def beta_ppf(q: float, a: float, b: float) -> float:
    """The quantile of Beta(a, b): the ``x`` with ``I_x(a, b) = q`` (``scipy.stats.beta.ppf``).

    ``q = 0`` gives 0 and ``q = 1`` gives 1. The equation is solved on the smaller tail
    (``1 − I_x`` when ``q > ½``) and in ``1 − x`` when the answer is above ½, so the result is
    accurate to ~1e-14 relative (of ``x``, or of ``1 − x`` above ½) where the double format
    can represent it; a root below the smallest double gives 0.
    """
    q = check_unit("q", q)
    a, b = _shapes(a, b)
    if q == 0.0:
        return 0.0
    if q == 1.0:
        return 1.0
    upper = q > 0.5
    p = 1.0 - q if upper else q
    ln_p = math.log(p)
    ln_half, _ = _ibeta_log(a, b, 0.5, 0.5, upper)
    if ln_half == ln_p:
        return 0.5
    # the answer is at most ½ iff the tail at ½ already holds p (lower) or at most p (upper)
    answer_at_most_half = ln_half <= ln_p if upper else ln_half >= ln_p
    if answer_at_most_half:
        return _solve_tail(a, b, upper, ln_p, p)
    # the answer exceeds ½: solve for y = 1 − x, where I_x(a, b) = 1 − I_y(b, a)
    return 1.0 - _solve_tail(b, a, not upper, ln_p, p)


def _check_binom(n: int, p: float) -> tuple[int, float]:
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise ValueError(f"n must be an integer, got {n!r}")
    n = n.__index__()
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return n, check_unit("p", p)


def binom_pmf(k: int, n: int, p: float) -> float:
    """``P[X = k]`` for ``X ~ Binomial(n, p)``, to relative accuracy even far in the tails;
    0 for ``k`` outside ``0..n`` (or not an integer)."""
    n, p = _check_binom(n, p)
    if isinstance(k, float):
        if not k.is_integer():
            return 0.0
        k = int(k)
    if k < 0 or k > n:
        return 0.0
    if p == 0.0:
        return 1.0 if k == 0 else 0.0
    if p == 1.0:
        return 1.0 if k == n else 0.0
    if k == 0:
        return math.exp(n * math.log1p(-p))
    if k == n:
        return math.exp(n * math.log(p))
    # C(n, k) = n / (k (n − k) B(k, n − k)), so pmf = front(k, n − k, p) · n / (k (n − k))
    ln_front = _log_front(float(k), float(n - k), p, 1.0 - p)
    return math.exp(ln_front + math.log(n / (k * (n - k))))


def binom_cdf(k: int, n: int, p: float) -> float:
    """``P[X ≤ k]`` for ``X ~ Binomial(n, p)`` (``= 1 − I_p(k + 1, n − k)``), no cancellation."""
    return _binom_tail(k, n, p, upper=False)


def binom_sf(k: int, n: int, p: float) -> float:
    """``P[X > k]`` for ``X ~ Binomial(n, p)`` (``= I_p(k + 1, n − k)``), no cancellation."""
    return _binom_tail(k, n, p, upper=True)


def _binom_tail(k: int, n: int, p: float, upper: bool) -> float:
    n, p = _check_binom(n, p)
    k = math.floor(k)
    if k < 0 or k >= n:
        return 1.0 if (k < 0) == upper else 0.0
    return _incomplete(k + 1.0, float(n - k), p, upper=not upper)
