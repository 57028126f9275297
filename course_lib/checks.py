"""Helpers for the exercise self-check cells.

Each check raises ``AssertionError`` with a message a student can act on ("what was expected,
what you gave"), and refuses placeholders (``None``, ``...``, ``NotImplemented``) so that a
check can never pass on an untouched stub.
"""

from __future__ import annotations

import numpy as np

_PLACEHOLDERS = (None, Ellipsis, NotImplemented)


def _reject_placeholder(name: str, value) -> None:
    if any(value is p for p in _PLACEHOLDERS):
        raise AssertionError(f"{name}: got {value!r}; did you fill in the task?")


def check_close(name: str, actual, expected, *, rtol: float = 1e-6, atol: float = 1e-9) -> None:
    """Assert ``actual`` equals ``expected`` elementwise within ``rtol``/``atol``, same shape."""
    _reject_placeholder(name, actual)
    actual_arr = np.asarray(actual, dtype=float)
    expected_arr = np.asarray(expected, dtype=float)
    if actual_arr.shape != expected_arr.shape:
        raise AssertionError(f"{name}: expected shape {expected_arr.shape}, got {actual_arr.shape}")
    if not np.all(np.isfinite(actual_arr) == np.isfinite(expected_arr)):
        raise AssertionError(f"{name}: NaN or inf where the reference has "
                             f"{'none' if np.all(np.isfinite(expected_arr)) else 'others'}")
    if not np.allclose(actual_arr, expected_arr, rtol=rtol, atol=atol, equal_nan=True):
        finite = np.isfinite(actual_arr) & np.isfinite(expected_arr)
        worst = np.max(np.abs(actual_arr[finite] - expected_arr[finite]), initial=0.0)
        raise AssertionError(f"{name}: differs from the reference (largest difference {worst:.3g};"
                             f" rtol={rtol}, atol={atol})")


def check_equal(name: str, actual, expected) -> None:
    """Assert exact equality (integers, labels, paths), comparing as arrays."""
    _reject_placeholder(name, actual)
    actual_arr, expected_arr = np.asarray(actual), np.asarray(expected)
    if actual_arr.shape != expected_arr.shape:
        raise AssertionError(f"{name}: expected shape {expected_arr.shape}, got {actual_arr.shape}")
    if not np.array_equal(actual_arr, expected_arr):
        mismatches = int(np.sum(actual_arr != expected_arr))
        raise AssertionError(f"{name}: {mismatches} of {expected_arr.size} entries differ from "
                             "the reference")


def check_between(name: str, value, low: float, high: float) -> None:
    """Assert a scalar lies in ``[low, high]`` (accuracies, log-likelihood ranges)."""
    _reject_placeholder(name, value)
    value = float(value)
    if not (low <= value <= high):
        raise AssertionError(f"{name}: expected a value in [{low}, {high}], got {value:.6g}")
