# Convenience targets; `python3 course.py lab|test` are the two commands the README gives.
PY := .venv/bin/python

.PHONY: lab test exercises outputs check bench data clean

lab:            ## set up and open the course in JupyterLab (127.0.0.1, with a token)
	python3 course.py lab

test:           ## set up and run every check and test
	python3 course.py test

exercises:      ## regenerate exercises/ from solutions/
	$(PY) tools/make_exercises.py

outputs:        ## re-run lectures/ and solutions/, keeping only nbval-checked outputs
	$(PY) tools/store_outputs.py

check:          ## static notebook checks and exercise freshness only
	$(PY) tools/check_notebooks.py && $(PY) tools/make_exercises.py --check

bench:          ## speed ratios against the reference libraries (not part of the tests)
	for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

data:           ## regenerate data/ (needs the generators' tools, see each data/*/README.md)
	$(PY) tools/make_digits.py && $(PY) tools/make_digit_pairs.py && $(PY) tools/make_co2.py && $(PY) tools/make_mcycle.py

clean:
	rm -rf .venv .pytest_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
