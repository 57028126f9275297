"""Argument checks shared by every course_lib module.

Every room of course_lib calls these, so they are public and documented: each ``as_*`` turns
an argument into the type a model needs and each ``check_*`` tests one, and both raise a
``ValueError`` or ``TypeError`` whose message starts with the argument's name, so a student
sees which input was wrong instead of a numpy traceback. :func:`listed_rows` names the rows a
message is about, :func:`renamed_error` restates an inner function's error with the caller's
argument name, and :func:`warn_deprecated` is the one warning an old name kept for a release
gives.
"""

from __future__ import annotations

import numbers
import warnings

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
    numeric (strings, None, ragged lists, complex numbers, a masked array with masked entries,
    whose hidden numbers numpy would silently use). ``allow_inf="+inf"`` or ``"-inf"`` lets that
    one infinity through (a distance with no path; the log of zero).
    """
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name}: expected a numeric array, got {type(x).__name__}")
    if isinstance(x, np.ma.MaskedArray) and np.ma.getmaskarray(x).any():
        raise TypeError(f"{name}: a masked array with {int(np.ma.getmaskarray(x).sum())} masked "
                        "entries; numpy would use the numbers under the mask, so fill them "
                        "explicitly first (x.filled(value))")
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
    finite = np.isfinite(arr)
    if finite.all():  # the common case first: the check runs on every call of the library
        return arr
    bad = ~finite
    if allow_inf is not None:
        bad &= arr != (np.inf if allow_inf == "+inf" else -np.inf)
    if bad.any():
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


def check_width(low, high, name: str) -> None:
    """Refuse, naming ``name``, a range ``low`` to ``high`` (or the rows of a box: arrays of
    lows and highs) whose width ``high - low`` is beyond float64, e.g. bounds at +-1.8e308:
    every grid, Sobol point or rescaling to [0, 1] inside it would come out inf or NaN."""
    with np.errstate(over="ignore"):
        width = np.subtract(high, low)
    too_wide = np.flatnonzero(~np.isfinite(np.ravel(width)))
    if too_wide.size:
        k = int(too_wide[0])
        raise ValueError(f"{name}: the range from {np.ravel(low)[k]:g} to {np.ravel(high)[k]:g} "
                         "is wider than a float64 can hold (its width overflows 1.8e308); "
                         "rescale the inputs to a smaller range")


def check_length(values: np.ndarray, name: str, n: int, per: str) -> np.ndarray:
    """Return the array ``values`` unless its length (a scalar counts as one) differs from
    ``n``: then ``ValueError`` naming ``name``, one value per ``per`` (what it is drawn
    against), instead of numpy's broadcasting error or matplotlib's about x and y."""
    given = values.shape[0] if values.ndim else 1
    if given != n:
        raise ValueError(f"{name}: expected one value per {per} ({n}), got {given}")
    return values


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


def listed_rows(mask: np.ndarray, noun: str = "row", limit: int = 5) -> str:
    """"row 3" or "rows 1, 4, 6, 7, 9 and 2 more": where ``mask`` is true, for an error message
    that points at the offending rows of a table without printing all of them."""
    rows = np.flatnonzero(mask)
    text = ", ".join(str(r) for r in rows[:limit])
    more = f" and {rows.size - limit} more" if rows.size > limit else ""
    return f"{noun}{'s' if rows.size > 1 else ''} {text}{more}"


# ----- sizes --------------------------------------------------------------------------------
#: The largest single array a course_lib function will allocate, in bytes (2 GiB). A request
#: beyond it is refused with the argument that asked for it and what to do instead, rather than
#: ending in a bare numpy ``MemoryError`` (or, on a machine that overcommits, in swapping).
_MAX_ARRAY_BYTES = 2 * 1024 ** 3


def _bytes_text(n_bytes: int) -> str:
    """1.5 GiB, 52 GiB, 7.3 TiB: a byte count as a person reads it."""
    value, unit = float(n_bytes), "bytes"
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if value < 1024 or unit == "EiB":
            break
        value /= 1024
    return f"{value:.3g} {unit}"


def check_array_size(shape, name: str, what: str, advice: str, *, itemsize: int = 8) -> None:
    """Refuse, before anything is allocated, an array of ``shape`` (whole numbers, Python ints
    so the product cannot overflow) with ``itemsize``-byte entries beyond
    :data:`_MAX_ARRAY_BYTES`: ``ValueError`` naming ``name`` (the user's argument that asked
    for it), saying ``what`` the array is and ``advice`` (what to do instead)."""
    n_bytes = int(itemsize)
    for extent in shape:
        n_bytes *= int(extent)
    if n_bytes > _MAX_ARRAY_BYTES:
        dims = " x ".join(f"{int(extent):,}" for extent in shape)
        raise ValueError(f"{name}: {what} ({dims} values) would need {_bytes_text(n_bytes)}, "
                         f"more than the {_bytes_text(_MAX_ARRAY_BYTES)} course_lib allows for "
                         f"one array; {advice}")


# ----- selections of items, trials, raters ----------------------------------------------------
def as_selection(values, name: str, size: int, *, noun: str = "item",
                 allow_repeats: bool = True) -> np.ndarray:
    """Which of ``size`` things (items, trials, raters) a user picked, as int64 indices.

    Accepts integer indices 0..size-1 (floats that are whole numbers too) or a boolean mask of
    length ``size`` (True = picked). Refuses, naming ``name``: fractions (never truncated),
    negative or out-of-range indices, a mask of another length, an empty selection and, unless
    ``allow_repeats``, an index given twice. One rule for every "which items / trials / raters"
    argument, so a mask is never read as the indices 0 and 1.
    """
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"{name}: expected {noun} indices or a boolean mask, got "
                        f"{type(values).__name__}")
    if isinstance(values, np.ma.MaskedArray):
        values = as_float_array(values, name)        # refuses masked entries by name
    try:
        raw = np.asarray(values)
    except ValueError as err:                        # ragged
        raise TypeError(f"{name}: expected {noun} indices or a boolean mask (a flat list), got "
                        f"{type(values).__name__}") from err
    if raw.dtype == bool:
        if raw.ndim != 1 or raw.shape[0] != size:
            raise ValueError(f"{name}: a boolean mask must have one entry per {noun} ({size}), "
                             f"got shape {raw.shape}")
        picked = np.flatnonzero(raw)
        if picked.size == 0:
            raise ValueError(f"{name}: the mask selects no {noun}")
        return picked.astype(np.int64)
    arr = as_float_array(raw, name, ndim=(0, 1))
    arr = arr.reshape(-1)
    fractional = arr != np.round(arr)
    if fractional.any():
        bad = int(np.flatnonzero(fractional)[0])
        raise ValueError(f"{name}: expected whole-number {noun} indices (or a boolean mask), "
                         f"entry {bad} is {arr[bad]:g}; fractions are not rounded")
    outside = (arr < 0) | (arr >= size)
    if outside.any():
        bad = int(np.flatnonzero(outside)[0])
        raise ValueError(f"{name}: {noun} indices run from 0 to {size - 1} (there are {size}), "
                         f"entry {bad} is {arr[bad]:g}")
    index = arr.astype(np.int64)
    if not allow_repeats:
        unique, counts = np.unique(index, return_counts=True)
        if np.any(counts > 1):
            raise ValueError(f"{name}: {noun} {int(unique[counts > 1][0])} is given more than "
                             "once")
    return index


# ----- waveforms ------------------------------------------------------------------------------
def as_waveform(x, name: str = "signal") -> np.ndarray:
    """A 1-D float64 waveform, checked like :func:`as_float_array`; a boolean array is refused
    (``TypeError``): True / False are no sample values, and numpy would read them as 1 / 0."""
    if getattr(x, "dtype", None) == np.bool_ or (
            isinstance(x, (list, tuple)) and len(x) and np.asarray(x).dtype == np.bool_):
        raise TypeError(f"{name}: a boolean array is not a waveform (numpy would read True / "
                        "False as samples 1 / 0); pass the sample values (e.g. float64 in "
                        "[-1, 1])")
    return as_float_array(x, name, ndim=1)


def renamed_error(err: Exception, internal: str, name: str) -> Exception | None:
    """``err`` again with its leading argument name ``internal`` (a helper's parameter) replaced
    by ``name`` (what the user passed), or None when the message does not start with it. For a
    public function that hands an argument on under another name."""
    message = str(err)
    if not message.startswith(f"{internal}:"):
        return None
    return type(err)(f"{name}:{message[len(internal) + 1:]}")


def warn_deprecated(old: str, new: str) -> None:
    """Warn that ``old`` goes in the next release and ``new`` replaces it, pointing at the line
    that called the alias (which called this)."""
    warnings.warn(f"{old} is deprecated and will be removed in the next release; use {new}",
                  DeprecationWarning, stacklevel=3)
