"""The preference GP's argument checks, and EP's errors restated in the model's argument names.

Apart from :mod:`course_lib.gp.preference` because they are its border (CONVENTIONS 3.1), not
the model of Chu & Ghahramani (2005): the kernel and likelihood a model is built with, the
inference it uses, the comparisons it is fitted to, each refused with a message that starts
with the user's argument; and EP's convergence errors, which name ``max_iter`` and ``tol`` of
:func:`~course_lib.gp.ep.expectation_propagation`, restated as the model's ``ep_max_iter`` and
``ep_tol``.
"""

from __future__ import annotations

from ..validation import _check_choice
from .comparisons import Comparisons
from .ep_result import EPConvergenceError
from .inputs import _check_exact_size
from .kernel_algebra import Kernel
from .likelihoods import Likelihood

_INFERENCES = ("laplace", "ep")


def _check_kernel_and_likelihood(kernel, likelihood) -> None:
    """A course_lib Kernel and Likelihood whose parameter names do not clash."""
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel: expected a course_lib.gp Kernel, got {type(kernel).__name__}")
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"likelihood: expected a course_lib.gp.likelihoods Likelihood, got "
                        f"{type(likelihood).__name__}")
    shared = set(kernel.param_names) & set(likelihood.param_names)
    if shared:
        raise ValueError(f"likelihood: its parameter names {sorted(shared)} clash with the "
                         "kernel's; hyper-parameters are addressed by name")


def _check_inference(inference, likelihood: Likelihood) -> str:
    """``"laplace"`` or ``"ep"``; EP only for a likelihood of single-item (bounded) ratings."""
    inference = _check_choice(inference, "inference", _INFERENCES)
    if inference == "ep" and likelihood.observation_kind != "bounded":
        raise ValueError(f"inference: 'ep' fits ratings of single items (a likelihood for "
                         f"'bounded' answers); {type(likelihood).__name__} models "
                         f"{likelihood.observation_kind!r} answers about pairs, whose terms "
                         "would need factorised two-item sites (thesis footnote 4), not "
                         "implemented. Use inference='laplace'")
    return inference


def _check_comparisons(comparisons, inference: str, likelihood: Likelihood) -> None:
    """Comparisons of the kind the ``likelihood`` models (single-item ratings under EP), few
    enough items for the exact model."""
    if not isinstance(comparisons, Comparisons):
        raise TypeError(f"comparisons: expected a course_lib.gp.comparisons.Comparisons, "
                        f"got {type(comparisons).__name__}")
    if inference == "ep" and comparisons.is_pairwise:
        raise ValueError(f"comparisons: inference='ep' fits single-item ratings only (kind "
                         f"'bounded'), got kind {comparisons.kind!r}: a pairwise term would "
                         "need factorised two-item sites (thesis footnote 4), not "
                         "implemented. Use inference='laplace'")
    if comparisons.kind != likelihood.observation_kind:
        raise ValueError(f"comparisons: kind {comparisons.kind!r} does not match the "
                         f"likelihood {type(likelihood).__name__}, which models "
                         f"{likelihood.observation_kind!r} answers")
    _check_exact_size(comparisons.n_items, "comparisons",
                     advice="use SparsePreferenceGP (course_lib.gp.sparse_preference) or "
                            "fit a subset of the comparisons")


def _restated_ep_error(err: EPConvergenceError, ep_max_iter: int) -> EPConvergenceError:
    """``err`` of :func:`~course_lib.gp.ep.expectation_propagation` in the model's names."""
    if err.stalled:
        message = (f"ep_tol: EP stalled at the current hyper-parameters (the sites kept "
                   f"moving by more than {err.change:.3g} > ep_tol = {err.tol:g}); the "
                   "likelihood may be too sharp there for its quadrature")
    else:
        message = (f"ep_max_iter: EP did not converge in {ep_max_iter} sweep(s) at "
                   f"the current hyper-parameters (the sites still moved by more than "
                   f"{err.change:.3g} > ep_tol = {err.tol:g}); raise ep_max_iter")
    return EPConvergenceError(message, err.change, err.tol, err.stalled)
