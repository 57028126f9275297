"""Figures of the HMM unit: posteriors, Baum-Welch explorer, parameter matrices, diagrams.

Every ``plot_*`` function draws on the axes it is given and returns them;
:func:`render_baum_welch` makes the whole figure of the Baum-Welch explorer. The Baum-Welch
trace is the one EM trace of the course,
:func:`course_lib.plotting.gmm.plot_log_likelihood_trace` (Unit 2). The trellis
(:func:`course_lib.plotting.hmm_trellis.plot_trellis`) and the trellis explorer's figure are in
:mod:`course_lib.plotting.hmm_trellis`.
Arrays follow course_lib.hmm.inference (rows are time steps: ``gamma[t, i]``). Trellis-like plots
put time on the x axis and states on the y axis, state 0 at the top. Numbers written on coloured
cells are black or white by the colour actually drawn (:func:`.colour.text_colours`).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import Normalize
from matplotlib.patches import Circle, FancyArrowPatch, Rectangle

from ..validation import as_float_array, check_length
from .colour import _text_colours
from .gmm import plot_log_likelihood_trace

__all__ = ["plot_posteriors", "plot_matrix", "plot_hmm_parameters", "render_baum_welch",
           "plot_state_diagram", "plot_symbol_sequence", "plot_chain_diagram",
           "plot_viterbi_segmentation", "plot_forward_underflow", "plot_accuracy_grid"]

_ANNOTATE_MAX_CELLS = 120


def _names(names, count: int, prefix: str = "") -> list[str]:
    return list(names) if names is not None else [f"{prefix}{i}" for i in range(count)]


def plot_posteriors(ax, gamma, *, true_states=None, path=None, state_names=None,
                    title: str = "state posteriors gamma_t(i)", cmap: str = "viridis"):
    """Heatmap of ``gamma[t, i] = P(q_t = i | O)`` (T, N) on a 0..1 scale, for long sequences.

    Optional overlays: the true (sampled) states as white dots, a decoded path as a red line.
    """
    gamma = as_float_array(gamma, "gamma", ndim=2)
    T, N = gamma.shape
    image = ax.imshow(gamma.T, aspect="auto", cmap=cmap, vmin=0.0, vmax=1.0,
                      interpolation="nearest")
    if true_states is not None:
        true_states = check_length(np.asarray(true_states), "true_states", T, "row of gamma")
        ax.plot(np.arange(T), true_states, "o", color="white", ms=3, label="true state")
    if path is not None:
        path = check_length(np.asarray(path), "path", T, "row of gamma")
        ax.plot(np.arange(T), path, "-", color="C3", lw=1.5, label="Viterbi path")
    if true_states is not None or path is not None:
        ax.legend(loc="upper right", fontsize=8)
    ax.set_yticks(range(N), _names(state_names, N, "q="))
    ax.set_xlabel("time t")
    ax.set_ylabel("state")
    ax.set_title(title)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.02)
    return ax


def plot_matrix(ax, matrix, *, row_labels=None, col_labels=None, title: str = "",
                annotate: bool | None = None, cmap: str = "Greens"):
    """A probability matrix (A, B, or pi as one row) as a 0..1 heatmap with its numbers."""
    matrix = np.atleast_2d(np.asarray(matrix, dtype=float))
    R, C = matrix.shape
    norm = Normalize(0.0, 1.0)
    ax.imshow(matrix, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    if annotate is None:
        annotate = R * C <= _ANNOTATE_MAX_CELLS
    if annotate:
        colours = _text_colours(matrix, cmap, norm)
        for r in range(R):
            for c in range(C):
                ax.text(c, r, f"{matrix[r, c]:.2f}", ha="center", va="center", fontsize=8,
                        color=colours[r, c])
    ax.set_yticks(range(R), _names(row_labels, R))
    ax.set_xticks(range(C), _names(col_labels, C))
    if title:
        ax.set_title(title)
    return ax


def plot_hmm_parameters(axes, hmm, *, title_prefix: str = ""):
    """pi, A and B of a :class:`course_lib.hmm.model.DiscreteHMM` on three axes; returns them."""
    ax_pi, ax_A, ax_B = axes
    states = _names(hmm.state_names, hmm.n_states)
    symbols = _names(hmm.symbol_names, hmm.n_symbols)
    plot_matrix(ax_pi, hmm.pi[None, :], row_labels=["pi"], col_labels=states,
                title=f"{title_prefix}pi")
    plot_matrix(ax_A, hmm.A, row_labels=states, col_labels=states,
                title=f"{title_prefix}A  (row q_t, column q_t+1)")
    plot_matrix(ax_B, hmm.B, row_labels=states, col_labels=symbols,
                title=f"{title_prefix}B  (row state, column symbol)")
    return axes


def render_baum_welch(trace, hmm, *, reference: float | None = None,
                      reference_label: str = "true model", title_prefix: str = ""):
    """Figure: a Baum-Welch log-likelihood trace beside the model's pi, A and B.

    ``trace[k] = log P(O | lambda_k)`` (e.g. ``BaumWelchStepper.log_likelihood_trace``),
    ``hmm`` the current model; ``reference`` is drawn as a dashed line.
    """
    trace = as_float_array(trace, "trace", ndim=1)
    # a fixed layout (no constrained layout): the explorer redraws this figure on every step
    fig = plt.figure(figsize=(11, 3.6))
    grid = fig.add_gridspec(2, 3, height_ratios=[1, 4], left=0.08, right=0.98, bottom=0.13,
                            top=0.84, wspace=0.28, hspace=0.75)
    plot_log_likelihood_trace(fig.add_subplot(grid[:, 0]), trace, reference=reference,
                              reference_label=reference_label, algorithm="Baum-Welch")
    plot_hmm_parameters((fig.add_subplot(grid[0, 1:]), fig.add_subplot(grid[1, 1]),
                         fig.add_subplot(grid[1, 2])), hmm, title_prefix=title_prefix)
    fig.suptitle(f"iteration {len(trace) - 1}: log P(O | lambda) = {trace[-1]:.3f}", fontsize=10,
                 y=0.98)
    return fig


def plot_state_diagram(ax, hmm, *, min_probability: float = 1e-3):
    """State-transition diagram: states on a circle, an arrow i -> j for each ``a_ij`` > threshold."""
    N = hmm.n_states
    names = _names(hmm.state_names, N)
    angle = np.pi / 2 - 2 * np.pi * np.arange(N) / N
    xy = np.column_stack([np.cos(angle), np.sin(angle)]) if N > 1 else np.zeros((1, 2))
    radius = 0.18
    for i in range(N):
        ax.add_patch(Circle(xy[i], radius, facecolor="lightyellow", edgecolor="black", zorder=3))
        ax.text(*xy[i], names[i], ha="center", va="center", fontsize=11, zorder=4)
        out = xy[i] / (np.linalg.norm(xy[i]) or 1.0) if N > 1 else np.array([0.0, 1.0])
        if hmm.A[i, i] > min_probability:  # self-loop above the state, away from the centre
            ax.add_patch(FancyArrowPatch(xy[i] + radius * (out + np.array([-out[1], out[0]])) / 1.4,
                                         xy[i] + radius * (out - np.array([-out[1], out[0]])) / 1.4,
                                         connectionstyle="arc3,rad=-1.6", arrowstyle="-|>",
                                         mutation_scale=12, color="C0"))
            ax.text(*(xy[i] + 2.6 * radius * out), f"{hmm.A[i, i]:.2f}", ha="center",
                    va="center", fontsize=8, color="C0")
        for j in range(N):
            if i == j or hmm.A[i, j] <= min_probability:
                continue
            ax.add_patch(FancyArrowPatch(xy[i], xy[j], connectionstyle="arc3,rad=0.2",
                                         arrowstyle="-|>", mutation_scale=12, shrinkA=20,
                                         shrinkB=20, color="C0"))
            middle = (xy[i] + xy[j]) / 2
            normal = np.array([xy[j, 1] - xy[i, 1], xy[i, 0] - xy[j, 0]])
            ax.text(*(middle + 0.12 * normal), f"{hmm.A[i, j]:.2f}", ha="center", va="center",
                    fontsize=8, color="C0")
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-1.6, 1.6)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title("transition diagram (a_ij)")
    return ax


def plot_symbol_sequence(ax, symbols, *, states=None, symbol_names=None, state_names=None,
                         title: str = "observation sequence"):
    """Symbols against time (steps), with the hidden states below when they are known."""
    symbols = np.asarray(symbols)
    T = len(symbols)
    ax.step(np.arange(T), symbols, where="mid", label="symbol o_t")
    M = int(symbols.max()) + 1 if symbol_names is None else len(symbol_names)
    ticks = list(range(M))
    labels = _names(symbol_names, M)
    if states is not None:
        states = check_length(np.asarray(states), "states", T, "symbol")
        offset = M + 1
        ax.step(np.arange(T), np.asarray(states) + offset, where="mid", color="C1",
                label="hidden state q_t")
        n_states = int(np.max(states)) + 1 if state_names is None else len(state_names)
        ticks += [offset + i for i in range(n_states)]
        labels += _names(state_names, n_states, "q=")
        ax.legend(fontsize=8, loc="upper right")
    ax.set_yticks(ticks, labels)
    ax.set_xlabel("time t")
    ax.set_title(title)
    return ax


def plot_chain_diagram(ax, hmm, *, min_probability: float = 1e-3):
    """Transition diagram with the states in a row, for left-to-right (Bakis) models.

    State i sits at x = i. Self-loops ``a_ii`` are drawn above the states, moves to the next
    state as straight arrows, longer forward jumps (skips) as arcs below and backward moves as
    arcs above; a "start" arrow enters every state with ``pi_i`` > ``min_probability``.
    """
    N = hmm.n_states
    names = _names(hmm.state_names, N)
    radius = 0.22
    arrow = dict(arrowstyle="-|>", mutation_scale=12, color="C0")
    for i in range(N):
        ax.add_patch(Circle((i, 0.0), radius, facecolor="lightyellow", edgecolor="black",
                            zorder=3))
        ax.text(i, 0.0, names[i], ha="center", va="center", fontsize=11, zorder=4)
        if hmm.pi[i] > min_probability:
            ax.add_patch(FancyArrowPatch((i - 0.35, -0.55), (i - 0.12, -0.2), **arrow,
                                         linestyle="--"))
            ax.text(i - 0.38, -0.62, "start" if hmm.pi[i] == 1 else f"{hmm.pi[i]:.2f}",
                    ha="center", va="top", fontsize=8)
        for j in range(N):
            a = hmm.A[i, j]
            if a <= min_probability:
                continue
            if j == i:  # self-loop above the state
                ax.add_patch(FancyArrowPatch((i - 0.12, radius * 0.9), (i + 0.12, radius * 0.9),
                                             connectionstyle="arc3,rad=-2.2", **arrow))
                label_xy = (i, 0.72)
            elif j == i + 1:
                ax.add_patch(FancyArrowPatch((i + radius, 0.0), (j - radius, 0.0), **arrow))
                label_xy = (i + 0.5, 0.1)
            else:  # a skip (below) or a backward move (above)
                start = (i, -radius) if j > i else (i, radius)
                end = (j, -radius) if j > i else (j, radius)
                ax.add_patch(FancyArrowPatch(start, end, connectionstyle="arc3,rad=0.35",
                                             **arrow))
                depth = 0.18 * abs(j - i) + radius
                label_xy = ((i + j) / 2, -depth - 0.12 if j > i else depth + 0.12)
            ax.text(*label_xy, f"{a:.2f}", ha="center", va="center", fontsize=8,
                    color="C0")
    ax.set_xlim(-0.8, N - 0.2)
    ax.set_ylim(-1.1, 1.0)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title("left-to-right transition diagram (a_ij)")
    return ax


def plot_viterbi_segmentation(ax, features, path, *, title: str = "Viterbi segmentation",
                              cmap: str = "magma"):
    """Feature frames (T, D) as an image with the boundaries of the decoded state path.

    ``features`` rows are frames (drawn along x, one column per frame, dimension d on y);
    ``path`` (T,) is a state sequence, e.g. ``viterbi(...).path``. A white line marks every
    frame where the state changes and each segment is labelled with its state, so one sees
    which stretch of the utterance each HMM state accounts for.
    """
    features = as_float_array(features, "features", ndim=2)
    path = np.asarray(path)
    T = features.shape[0]
    if path.shape != (T,):
        raise ValueError(f"path: expected one state per frame, shape ({T},), got {path.shape}")
    D = features.shape[1]
    ax.imshow(features.T, origin="lower", aspect="auto", cmap=cmap, interpolation="nearest",
              extent=(-0.5, T - 0.5, -0.5, D - 0.5))
    changes = np.flatnonzero(np.diff(path) != 0) + 1
    bounds = np.concatenate([[0], changes, [T]])
    for t in changes:
        ax.axvline(t - 0.5, color="white", lw=1.5)
    for start, stop in zip(bounds[:-1], bounds[1:]):
        ax.text((start + stop - 1) / 2, D - 0.5, f"q={int(path[start])}", ha="center",
                va="bottom", fontsize=8)
    ax.set_xlabel("frame t")
    ax.set_ylabel("feature dimension d")
    ax.set_title(title, pad=14)
    return ax


#: log10 of the smallest positive float64 (a subnormal, about 4.9e-324).
_LOG10_TINIEST = float(np.log10(np.nextafter(0.0, 1.0)))


def plot_forward_underflow(ax, unscaled, scaled):
    """Why scaling is needed: ``log10 P(o_1..o_t)`` from the naive pass and the scaled one.

    ``unscaled`` is a :class:`course_lib.hmm.inference.UnscaledForward`, ``scaled`` a
    :class:`course_lib.hmm.inference.ScaledForward` of the same sequence. The naive curve is
    ``log10 sum_i alpha_t(i)`` and stops where alpha underflows to exactly 0; the scaled one is
    ``sum_{s<=t} log10 scale_s`` and goes on. A dashed line marks the smallest float64.
    """
    alpha_sum = unscaled.alpha.sum(axis=1)
    scale = np.asarray(scaled.scale, dtype=float)
    if alpha_sum.shape != scale.shape:
        raise ValueError(f"scaled: expected the same sequence length as unscaled "
                         f"({alpha_sum.shape[0]}), got {scale.shape[0]}")
    t = np.arange(1, len(scale) + 1)
    positive = alpha_sum > 0
    with np.errstate(divide="ignore"):
        exact = np.cumsum(np.log10(scale))
    ax.plot(t, exact, color="C2", lw=2.5, label="scaled: sum of log10 scale_t")
    ax.plot(t[positive], np.log10(alpha_sum[positive]), color="C3", ls="--", lw=1.5,
            label="unscaled: log10 sum_i alpha_t(i)")
    if not positive.all():
        first_zero = int(np.argmin(positive)) + 1
        ax.axvline(first_zero, color="C3", lw=0.8, alpha=0.6)
        ax.annotate(f"alpha_t = 0 from t = {first_zero}", (first_zero, _LOG10_TINIEST),
                    xytext=(8, 12), textcoords="offset points", color="C3", fontsize=8)
    ax.axhline(_LOG10_TINIEST, color="grey", ls=":", label="smallest float64")
    ax.set_xlabel("time t")
    ax.set_ylabel("log10 P(o_1..o_t | lambda)")
    ax.set_title("forward pass: naive vs scaled")
    ax.legend(fontsize=8, loc="lower left")
    return ax


def plot_accuracy_grid(ax, accuracy, row_values, col_values, *, row_name: str = "K",
                       col_name: str = "N", best=None, title: str = "accuracy",
                       cmap: str = "Blues"):
    """A (rows, columns) grid of accuracies (e.g. codebook size x number of states).

    The colours span the grid's own range (the differences are small); every cell shows its
    value, and ``best`` = (row index, column index) is outlined.
    """
    accuracy = as_float_array(accuracy, "accuracy", ndim=2)
    R, C = accuracy.shape
    if len(row_values) != R or len(col_values) != C:
        raise ValueError(f"row_values: expected {R} row and {C} column values to match "
                         f"accuracy {accuracy.shape}, got {len(row_values)} and {len(col_values)}")
    low, high = float(accuracy.min()), float(accuracy.max())
    norm = Normalize(low - 0.25 * (high - low + 1e-9), high)
    ax.imshow(accuracy, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    colours = _text_colours(accuracy, cmap, norm)
    for r in range(R):
        for c in range(C):
            ax.text(c, r, f"{accuracy[r, c]:.3f}", ha="center", va="center", fontsize=9,
                    color=colours[r, c])
    if best is not None:
        r, c = best
        ax.add_patch(Rectangle((c - 0.48, r - 0.48), 0.96, 0.96, fill=False,
                               edgecolor="C3", lw=2.5))
    ax.set_yticks(range(R), [f"{row_name}={v}" for v in row_values])
    ax.set_xticks(range(C), [f"{col_name}={v}" for v in col_values])
    ax.set_title(title)
    return ax
