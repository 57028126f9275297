"""The course's units, in order: the single list the notebook tests check collection against.

Add a unit here when its notebooks land; the guard in conftest.py then insists that nbval
collected exactly these notebooks, so a typo in a path or glob cannot pass vacuously.
"""

UNITS = [
    "01_dtw",
    "02_gaussians_gmm",
    "03_hmm",
    "04_gp_regression",
    "05_gp_raters",
    "06_preference_gp",
    "07_mixed_feedback",
    "08_pronunciation",
]
NOTEBOOK_DIRS = ("lectures", "solutions", "class")  # guarded whenever nbval runs one whole
# The class activities (class/): the two a student answers and the lecturer's class notebook.
CLASS_NOTEBOOKS = ("rate", "compare", "class_panel")
