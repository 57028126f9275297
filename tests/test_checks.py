"""The self-check helpers must fail loudly on placeholders and wrong answers."""

import numpy as np
import pytest

from course_lib.checks import check_between, check_close, check_equal


@pytest.mark.parametrize("placeholder", [None, Ellipsis, NotImplemented])
def test_placeholders_never_pass(placeholder):
    for check in (lambda v: check_close("x", v, 1.0), lambda v: check_equal("x", v, 1),
                  lambda v: check_between("x", v, 0, 2)):
        with pytest.raises(AssertionError, match="fill in"):
            check(placeholder)


def test_check_close_reports_shape_nonfinite_and_difference():
    check_close("ok", [1.0, np.inf], [1.0 + 1e-9, np.inf])
    with pytest.raises(AssertionError, match="shape"):
        check_close("v", [1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(AssertionError, match="NaN or inf"):
        check_close("v", [np.nan, 1.0], [0.0, 1.0])
    with pytest.raises(AssertionError, match=r"largest difference 0\.5"):
        check_close("v", [np.inf, 1.5], [np.inf, 1.0])  # matching infs give no warning


def test_check_equal_and_between():
    check_equal("path", [[0, 0], [1, 1]], np.array([[0, 0], [1, 1]]))
    with pytest.raises(AssertionError, match="1 of 4 entries"):
        check_equal("path", [[0, 0], [1, 2]], [[0, 0], [1, 1]])
    check_between("accuracy", 0.93, 0.8, 1.0)
    with pytest.raises(AssertionError, match=r"\[0\.8, 1\.0\]"):
        check_between("accuracy", 0.1, 0.8, 1.0)
