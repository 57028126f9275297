"""Tests of course_lib.plotting, one file per module (docs/CONVENTIONS.md section 6)."""
