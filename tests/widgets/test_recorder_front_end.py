"""The microphone recorder's front end (course_lib.widgets._recorder_front_end): the ES module
the browser runs; tests/browser/test_recorder_in_lab.py runs it in JupyterLab."""

from course_lib.widgets._recorder_front_end import _CSS, _ESM
from course_lib.widgets.recorder import Recorder


def test_front_end_handles_every_failure_it_promises():
    esm = Recorder._esm if isinstance(Recorder._esm, str) else str(Recorder._esm)
    assert esm == _ESM and Recorder._css == _CSS
    for needle in ("getUserMedia", "MediaRecorder", "NotAllowedError", "NotFoundError",
                   "secure", "decodeAudioData", "export default"):
        assert needle in esm
