"""The GOP scorer speechocean762's shipped features were made with.

The data layer (:mod:`course_lib.data.speechocean762`) reads the corpus and returns plain records,
the corpus's texts and lexicon among them, and imports no model. :func:`load_pronunciation_scorer`
makes of them the :class:`~course_lib.pronunciation.gop.PronunciationScorer` of the recipe
(``tools/make_speechocean762.py``): pocketsphinx's CMU dictionary plus, for the words of the
5,000 texts it lacks, the corpus's lexicon. The thresholds the features were made with are a
plain record of the data set (:meth:`course_lib.data.speechocean762.PanelSet.gop_thresholds`),
which :func:`~course_lib.pronunciation.gop_features` takes as it is.
"""

from __future__ import annotations

from course_lib.data import DataError
from course_lib.data.speechocean762 import load_corpus_lexicon, load_corpus_texts

from .gop import PronunciationScorer


def load_pronunciation_scorer() -> PronunciationScorer:
    """The GOP scorer the shipped features were made with: pocketsphinx's CMU dictionary plus,
    for the words of the 5,000 texts it lacks, the corpus's lexicon
    (:func:`course_lib.data.speechocean762.load_corpus_lexicon`)."""
    scorer = PronunciationScorer()
    for word, phones in _words_to_add(scorer, load_corpus_texts(), load_corpus_lexicon()).items():
        scorer.add_word(word, phones)
    return scorer


def _words_to_add(scorer: PronunciationScorer, texts, lexicon: dict[str, str]) -> dict[str, str]:
    """{word: phones from ``lexicon``} for every word of ``texts`` that ``scorer``'s dictionary
    lacks; a word in neither is a :class:`~course_lib.data.DataError`."""
    words = sorted({word for text in texts for word in text.split()
                    if scorer.pronunciation(word) is None})
    missing = [word for word in words if word not in lexicon]
    if missing:
        raise DataError(f"dataset 'speechocean762': no pronunciation for {missing} in the CMU "
                        f"dictionary or the corpus's lexicon.txt")
    return {word: lexicon[word] for word in words}
