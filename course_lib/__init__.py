"""course_lib: the library behind the course "Probabilistic models of speech and human
judgement, from DTW to preference GPs".

One package per unit, in course order, each ``__init__`` the unit's face (the names its lecture
and homework import): ``dtw`` (Unit 1: DTW, fast search, spoken term discovery), ``gmm`` (Unit
2: Gaussians, k-means, mixtures and EM), ``hmm`` (Unit 3: vector quantisation and discrete
HMMs), ``gp`` (Unit 4: kernels, GP regression, the sparse bound), ``raters`` (Unit 5: many
raters), ``preference`` (Unit 6: comparisons, Laplace and EP, active learning) and ``mixed``
(Unit 7: mixed feedback, variational GPs, level sets). Each module of a unit holds one idea;
``docs/ALGORITHMS.md`` maps every algorithm a lecture teaches to the function that holds its
core. A unit imports only earlier units and the shared modules below the models.

Shared at the top, below the models (a unit may import them): ``validation`` and ``linalg``
(argument checks, dense linear algebra); ``metrics`` (the evaluation measures); ``features``
(the MFCC front end); ``rater_data`` (several raters' scores per item, the data type of Units
5-7, which the data loaders return and the models read). Shared above the models: ``significance`` (comparing two models on the
same items); ``recording`` (a student's own recording as course data); ``stimuli`` (the
sounds the explorers play); ``results`` (the committed results of ``experiments/``); ``stated_rates`` (the register of
every rate a student reads, with the experiment that measured it); ``reports``
(the text a lecture prints of one: lecture 05's tables, which Unit 5 writes in
``raters.experiment_tables``); ``checks`` (the exercise self-checks). ``data`` loads what
``data/`` ships; ``recognition`` wires Units 1-3 into recognisers behind one interface, with
their measures and the dev-set choice of a GMM recogniser's size; ``pronunciation`` is Unit 5's
speech scoring (goodness of pronunciation, each word's and phone's expert score, the expert
panel), a package of its own because its models read the corpus they are trained on;
``simulators`` plays the raters, listeners and observers of Units 5-7;
``class_panel`` gathers and models a class's own judgements; ``plotting`` and ``widgets`` are
thin layers that the notebooks use.

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

# The shared modules at the top of the library: the one list the code budget and the layer
# tests read, and that this docstring and docs/CONVENTIONS.md are checked against. A unit may
# import those below the models; those above wire units and the course together.
_SHARED_BELOW_MODELS = ("validation", "linalg", "metrics", "features", "rater_data")
_SHARED_ABOVE_MODELS = ("significance", "recording", "stimuli", "results", "stated_rates",
                        "reports", "checks")
# The packages above the models that are not units: no unit imports them.
_PACKAGES_ABOVE_MODELS = ("recognition", "pronunciation")
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
