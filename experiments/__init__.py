"""Scripts that reproduce the tables and figures of the course's source papers.

Run one from the repository root as ``python -m experiments.<script> [--reduced]``;
``experiments/README.md`` lists them and documents the result files they write.
"""
