"""Tests of course_lib.pronunciation, one file per module (a package, so a file name may repeat in
another folder of tests/: see docs/CONVENTIONS.md section 6)."""
