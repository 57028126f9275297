"""The LPR table of speechocean762: every aligned phone's frame log-likelihood under every phone.

``data/speechocean762/gop_lpr_all.npz`` (``tools/make_speechocean762_lpr.py``) holds, for every
phone of ``gop_phones_all.csv.gz`` in order, the mean over its frames of each of the 39 phones'
and silence's frame log-likelihood (pocketsphinx's context-independent senones, the frame's best
phone at 0) and the log posterior of the phone itself (LPP), in tenths of a nat.
:mod:`course_lib.pronunciation.context_features` turns them into log posterior ratios (Hu et
al. 2015; the corpus's Kaldi recipe, Zhang et al. 2021).
"""

from __future__ import annotations

import io

import numpy as np

from . import DataError, _read_verified
from .speechocean762 import load_speechocean762

__all__ = ["load_lpr_table"]

_LPR_TABLE = "gop_lpr_all.npz"


def load_lpr_table() -> tuple[tuple[str, ...], dict[int, tuple[np.ndarray, np.ndarray]]]:
    """(the phone set, {item: (frame_loglik (n, K), lpp (n,))}) of ``gop_lpr_all.npz``, in
    nats, the rows of each item those of its phones in
    ``load_speechocean762().all_phones()``; the file is checked against the data set's
    manifest and its rows against the phones'."""
    verified = _read_verified("speechocean762", _LPR_TABLE)
    where = f"dataset 'speechocean762': {verified.path}"
    try:
        with np.load(io.BytesIO(verified.content), allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError) as err:
        raise DataError(f"{where}: not the LPR table ({err})") from None
    tenths = float(arrays["tenths_of_a_nat"])
    items, loglik, lpp = arrays["item"], arrays["frame_loglik"] / tenths, arrays["lpp"] / tenths
    phone_set = tuple(str(name) for name in arrays["phone_set"])
    phones = load_speechocean762("accuracy", "gop").all_phones()
    table = {}
    for item in np.unique(items):
        rows = np.flatnonzero(items == item)
        if len(phones.get(int(item), ())) != rows.size or np.any(np.diff(rows) != 1):
            raise DataError(f"{where}: item {item} has {rows.size} rows, its phones "
                            f"{len(phones.get(int(item), ()))}")
        table[int(item)] = (loglik[rows], lpp[rows])
    if set(table) != set(phones):
        raise DataError(f"{where}: its items are not those of gop_phones_all.csv.gz")
    return phone_set, table
