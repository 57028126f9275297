"""A personalisation session with a simulated listener, shared by the tests of the session and
of its explorer."""

from course_lib.simulators import personalisation as S


def new_session(n_bands=2, *, seed=0, n_random=4, listener=True):
    hidden = S.hidden_listener(n_bands, rng=seed) if listener else None
    return S.PersonalisationSession(n_bands, listener=hidden, n_random=n_random, rng=seed)
