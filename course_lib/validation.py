"""Argument checks shared by every course_lib module.

Each helper raises a ``ValueError`` or ``TypeError`` whose message starts with the argument's
name, so a student sees which input was wrong instead of a numpy traceback.
"""

from __future__ import annotations

import numbers

import numpy as np

RngLike = np.random.Generator | int | None


def as_rng(rng: RngLike, name: str = "rng") -> np.random.Generator:
    """Return a ``np.random.Generator`` from a Generator, an int seed or None (fresh entropy)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, numbers.Integral) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    raise TypeError(f"{name}: expected a numpy Generator, an int seed or None, got {type(rng).__name__}")


def as_float_array(x, name: str, ndim: int | tuple[int, ...] | None = None,
                   allow_empty: bool = False, allow_inf: str | None = None) -> np.ndarray:
    """Convert ``x`` to a finite float64 array, checking its number of dimensions.

    Raises ``ValueError`` for NaN/inf, values beyond float64's range, an unexpected ``ndim`` or
    (unless ``allow_empty``) an empty array, and ``TypeError`` for input that is not real and
    numeric (strings, None, ragged lists, complex numbers). ``allow_inf="+inf"`` or ``"-inf"``
    lets that one infinity through (a distance with no path; the log of zero).
    """
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name}: expected a numeric array, got {type(x).__name__}")
    try:
        is_complex = np.iscomplexobj(x)
        arr = np.asarray(x, dtype=np.float64) if not is_complex else None
    except OverflowError as err:
        raise ValueError(f"{name}: a value is too large for a float64 (|x| > 1.8e308)") from err
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name}: expected a numeric array (equal-length rows of numbers), "
                        f"got {type(x).__name__}") from err
    if is_complex:
        raise TypeError(f"{name}: expected real numbers, got complex values (take .real or "
                        "abs() first if that is what you mean)")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(f"{d}-D" for d in allowed)
            raise ValueError(f"{name}: expected a {want} array, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name}: must not be empty (shape {arr.shape})")
    bad = ~np.isfinite(arr)
    if allow_inf is not None and bad.any():
        bad &= arr != (np.inf if allow_inf == "+inf" else -np.inf)
    if np.any(bad):
        refused = "NaN or inf" if allow_inf is None else \
            f"NaN or {'-inf' if allow_inf == '+inf' else '+inf'}"
        raise ValueError(f"{name}: contains {refused}")
    return arr


def as_positive_int(value, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int, raising ``ValueError`` outside ``[minimum, maximum]``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name}: must be >= {minimum}, got {_short(value)}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name}: must be <= {maximum}, got {_short(value)}")
    return int(value)


def _short(value: int) -> str:
    """An integer as text, a huge one by its size (a 400-digit number helps nobody)."""
    text = str(int(value))
    return text if len(text) <= 20 else f"an integer with {len(text.lstrip('-'))} digits"


def as_positive_float(value, name: str, allow_zero: bool = False) -> float:
    """Return ``value`` as a finite float that is > 0 (or >= 0 with ``allow_zero``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a real number, got {type(value).__name__}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{name}: too large for a float64, got an integer with "
                         f"{len(str(abs(int(value))))} digits") from None
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name}: must be finite and {bound}, got {value}")
    return value


def as_bool(value, name: str) -> bool:
    """Return ``value`` as a bool, raising ``TypeError`` unless it is True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {type(value).__name__}")
    return bool(value)


def check_choice(value, name: str, choices) -> str:
    """Raise ``ValueError`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name}: expected one of {sorted(choices)}, got {value!r}")
    return value
