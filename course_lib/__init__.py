"""course_lib: the library behind the course "Probabilistic models of speech and human
judgement, from DTW to preference GPs".

One module per model family (``dtw``, ``features``, ``gaussian``, ``kmeans``, ``gmm``, ``hmm``,
``gp``); ``data`` loads what ``data/`` ships; ``plotting`` and ``widgets`` are thin layers
that the notebooks use; ``checks`` backs the exercise self-checks.
"""

__version__ = "0.1.0"
