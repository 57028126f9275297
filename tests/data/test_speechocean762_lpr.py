"""The LPR table of speechocean762's aligned phones (course_lib.data.speechocean762_lpr), as
tools/make_speechocean762_lpr.py writes it from pocketsphinx's senone scores."""

import numpy as np

from course_lib.data.speechocean762_lpr import load_lpr_table


def test_the_lpr_table_matches_the_shipped_phones():
    phone_set, table = load_lpr_table()
    assert len(phone_set) == 40 and phone_set[-1] == "SIL"
    loglik, lpp = table[0]
    # every frame's best phone is at 0, so the means are at most 0; the LPP is a log posterior
    assert np.all(loglik <= 0) and np.all(lpp <= 0)
    assert sum(rows[0].shape[0] for rows in table.values()) == 95_660
