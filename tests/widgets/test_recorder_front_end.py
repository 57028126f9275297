"""The microphone recorder's front end (course_lib.widgets._recorder_front_end): the ES module
the browser runs; tests/browser/test_recorder_in_lab.py runs it in JupyterLab."""

from course_lib.widgets._recorder_front_end import _ESM


def test_front_end_handles_every_failure_it_promises():
    for needle in ("getUserMedia", "MediaRecorder", "NotAllowedError", "NotFoundError",
                   "secure", "decodeAudioData", "export default"):
        assert needle in _ESM
