"""course_lib: the library behind the course "Probabilistic models of speech and human
judgement, from DTW to preference GPs".

One module per model family (``dtw`` and its pruned search ``dtw_search``, whose compiled
kernels are in ``dtw_pruning``; ``term_discovery`` (with the fragment types in
``term_fragments``, clustering in ``term_clusters``, judging by known words in
``term_evaluation``), ``features``, ``gaussian``, ``kmeans``,
``affinity`` (affinity propagation), ``gmm``, ``hmm`` (with Baum-Welch's loop and restarts in
``hmm_training``, its compiled passes in ``hmm_kernels``, their result types in ``hmm_results``,
the model type, examples and sampling in ``hmm_models`` and the packing of observations in
``hmm_sequences``), ``vq``, and
``gp`` for the Gaussian processes of Units 4-7). The GP units each have a front door: ``gp``
(Unit 4, regression), ``raters`` (Unit 5, many raters), ``preference`` (Unit 6, comparisons) and
``mixed`` (Unit 7, mixed feedback); ``simulators`` plays the raters, listeners and observers of
Units 5-7;
``recognition`` puts the DTW, GMM and HMM recognisers behind one interface; ``metrics`` holds
the evaluation measures (scores against raters, preferences), with the recognition measures in
``recognition_metrics`` and the level-set scores in ``levelset_metrics``; ``linalg`` and
``validation`` are the shared numerics and argument checks; ``data`` loads what ``data/`` ships; ``results``
reads the committed results of ``experiments/``; ``plotting`` and ``widgets`` are thin layers
that the notebooks use; ``checks`` backs the exercise self-checks.

Importing the package limits BLAS (numpy's and scipy's OpenBLAS or MKL) to one thread, unless
``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` or ``MKL_NUM_THREADS`` is set: then the user's
choice stands. The course multiplies many small matrices, and there BLAS threads cost more than
they gain: with one thread per core, EM on a few thousand frames ran 2 to 14 times slower on a busy
2-core machine. Doing it here gives the same speed however the course is opened: ``course.py
lab``, a plain ``jupyter lab``, conda or Binder, or a Python script. To use more threads, set one
of those variables before starting Python (``OPENBLAS_NUM_THREADS=4 jupyter lab``), or call
``threadpoolctl.threadpool_limits(4, user_api="blas")`` after importing ``course_lib``.
"""

import os

__version__ = "0.1.0"

_BLAS_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _default_to_one_blas_thread() -> None:
    if any(os.environ.get(name) for name in _BLAS_THREAD_VARIABLES):
        return
    # threadpoolctl can only limit libraries already loaded: numpy and scipy each bring their own.
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


_default_to_one_blas_thread()
