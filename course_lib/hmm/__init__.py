"""Unit 3, discrete hidden Markov models: the face of ``course_lib.hmm``.

What the unit teaches, in the order of lecture 03 (each module holds one idea; the cores are listed
in ``docs/ALGORITHMS.md``):

- ``model``: the model (:class:`DiscreteHMM`), the lecture's weather-and-mood example, left-to-right
  and random starting models, and sampling.
- ``inference``: the forward pass (unscaled, scaled and in log space), the backward pass, the state
  posteriors and Viterbi decoding (Rabiner 1989, eqs. 19-27, 32-35), with their result types.
- ``training``: Baum-Welch re-estimation, its E-step's expected counts and its M-step (Rabiner
  1989, eqs. 36-38 and 40a-40c) with the emission floor, step by step and to convergence with
  restarts (:func:`baum_welch`, :func:`fit_hmm`).
- ``vq``: vector quantisation, which turns frames into the symbols a discrete HMM emits
  (:class:`Codebook`).

Compiled beside them: ``recursions`` (the recursions of the passes, as the slides write them).
An engine a reader of an algorithm need not open: ``_sequences`` (checking and packing
observation sequences).
"""

from .vq import Codebook, quantisation_error, quantise, quantise_all, train_codebook
from .model import (DiscreteHMM, HMMSample, left_to_right_hmm, random_hmm, sample, sample_sequences,
                    weather_mood_hmm, WEATHER_MOOD_LONG_OBSERVATIONS, WEATHER_MOOD_OBSERVATIONS,
                    weather_mood_sequences)
from .inference import (backward_scaled, explain_zero_probability, forward_log, forward_scaled,
                        forward_unscaled, log_likelihoods, LogForward, posteriors, Posteriors,
                        ScaledForward, UnscaledForward, viterbi, ViterbiResult)
from .training import baum_welch, baum_welch_step, BaumWelchResult, BaumWelchStepper, fit_hmm

__all__ = [
    "Codebook", "train_codebook", "quantise", "quantise_all", "quantisation_error",
    "DiscreteHMM", "weather_mood_hmm", "WEATHER_MOOD_OBSERVATIONS",
    "WEATHER_MOOD_LONG_OBSERVATIONS", "weather_mood_sequences", "left_to_right_hmm",
    "random_hmm", "sample", "sample_sequences", "HMMSample", "forward_unscaled",
    "forward_scaled", "backward_scaled", "forward_log", "explain_zero_probability",
    "posteriors", "viterbi", "log_likelihoods", "UnscaledForward", "ScaledForward",
    "LogForward", "Posteriors", "ViterbiResult", "BaumWelchResult", "BaumWelchStepper",
    "baum_welch_step", "baum_welch", "fit_hmm",
]
