"""Typical wrong answers for solutions/08_pronunciation.ipynb (see tests/wrong_answers/__init__.py).

Per task function: a typical slip, which the self-check names in its hint, and an answer that
just calls the library (every such answer passes the visible checks and fails the hidden test,
which runs the function with the library's routes withheld: "off limits").
"""

from wrong_answers import Mistake

MISTAKES = [
    Mistake("word_gop", why="the plain mean of a word's phones, not weighted by their "
            "durations", code="""
        words = []
        for index in dict.fromkeys(phone.word_index for phone in phones):
            own = [phone for phone in phones if phone.word_index == index]
            words.append((own[0].word, float(np.mean([phone.gop for phone in own]))))
        return words
        """, expect="weigh each phone by its duration"),
    Mistake("word_gop", why="phones grouped by the word's text, so a word said twice becomes "
            "one", code="""
        by_text = {}
        for phone in phones:
            by_text.setdefault(phone.word, []).append(phone)
        return [(word, sum((p.end - p.start) * p.gop for p in own)
                 / sum(p.end - p.start for p in own)) for word, own in by_text.items()]
        """, expect="group the phones by word_index"),
    Mistake("word_gop", why="the duration-weighted sum of the phones' GOP, never divided by the "
            "word's duration", code="""
        words = []
        for index in dict.fromkeys(phone.word_index for phone in phones):
            own = [phone for phone in phones if phone.word_index == index]
            words.append((own[0].word, sum((p.end - p.start) * p.gop for p in own)))
        return words
        """, expect="a weighted MEAN"),
    Mistake("word_gop", why="frames counted with int((end - start) * 100), which truncates: "
            "(0.50 - 0.45) * 100 is 4.999..., so the /t/ of CAT gets 4 frames, not 5", code="""
        words = []
        for index in dict.fromkeys(phone.word_index for phone in phones):
            own = [phone for phone in phones if phone.word_index == index]
            frames = [int((p.end - p.start) * 100) for p in own]
            words.append((own[0].word, sum(f * p.gop for f, p in zip(frames, own)) / sum(frames)))
        return words
        """, expect="round((end - start) * 100), not int()"),
    Mistake("word_gop", why="frames counted as int(end * 100) - int(start * 100), truncating "
            "each end (0.29 * 100 is 28.999...)", code="""
        words = []
        for index in dict.fromkeys(phone.word_index for phone in phones):
            own = [phone for phone in phones if phone.word_index == index]
            frames = np.array([int(p.end * 100) - int(p.start * 100) for p in own])
            words.append((own[0].word, float(frames @ [p.gop for p in own] / frames.sum())))
        return words
        """, expect="round(end * 100) - round(start * 100), not int()"),
    Mistake("word_gop", why="frames counted with int((end - start) / 0.01), a truncated "
            "quotient", code="""
        words = []
        for index in dict.fromkeys(phone.word_index for phone in phones):
            own = [phone for phone in phones if phone.word_index == index]
            frames = np.array([int((p.end - p.start) / 0.01) for p in own])
            words.append((own[0].word, float(frames @ [p.gop for p in own] / frames.sum())))
        return words
        """, expect="not int()"),  # on the hand-made sentence it gives the * 100 variant's hint
    Mistake("sentence_summary", why="the duration-weighted mean of the phones for the mean phone "
            "GOP (the feature gop_frame_mean, not gop_mean)", code="""
        gop = np.array([phone.gop for phone in phones])
        seconds = np.array([phone.end - phone.start for phone in phones])
        worst_word, worst_gop = min(word_gop(phones), key=lambda pair: pair[1])
        return (float(seconds @ gop / seconds.sum()), float(np.mean(gop < low_threshold)),
                worst_word, worst_gop)
        """, expect="counts each phone once"),
    Mistake("sentence_summary", why="the worst word taken as the word holding the lowest "
            "single phone", code="""
        gop = np.array([phone.gop for phone in phones])
        lowest = min(phones, key=lambda phone: phone.gop)
        word = dict(word_gop(phones))[lowest.word]
        return float(gop.mean()), float(np.mean(gop < low_threshold)), lowest.word, word
        """, expect="lowest WORD GOP"),
    Mistake("sentence_summary", why="the number of low phones instead of their fraction",
            code="""
        gop = np.array([phone.gop for phone in phones])
        worst_word, worst_gop = min(word_gop(phones), key=lambda pair: pair[1])
        return float(gop.mean()), int(np.sum(gop < low_threshold)), worst_word, worst_gop
        """, expect="divide the number of low phones"),

    # answers that just call the library: the hidden tests withhold it (course_lib.checks.withheld)
    Mistake("exact_interval", why="the normal (Wald) interval, share +- 1.96 sqrt(share (1 - "
            "share) / n)", code="""
        share = successes / trials
        half = 1.959963984540054 * np.sqrt(share * (1 - share) / trials)
        return share - half, share + half
        """, expect="that is the normal (Wald) interval"),
    Mistake("exact_interval", why="the whole of alpha in each tail (a 90% interval called 95%)",
            code="""
        alpha = 1.0 - confidence
        low = 0.0 if successes == 0 else beta.ppf(alpha, successes, trials - successes + 1)
        high = 1.0 if successes == trials else beta.ppf(1 - alpha, successes + 1,
                                                         trials - successes)
        return float(low), float(high)
        """, expect="put alpha / 2 in each tail"),
    Mistake("exact_interval", why="the two beta distributions swapped between the ends", code="""
        tail = (1.0 - confidence) / 2.0
        low = 0.0 if successes == 0 else beta.ppf(tail, successes + 1, trials - successes)
        high = 1.0 if successes == trials else beta.ppf(1 - tail, successes,
                                                         trials - successes + 1)
        return float(low), float(high)
        """, expect="not the other way round"),
    Mistake("exact_interval", why="no special case for 0 or all successes: Beta(0, n + 1) is "
            "undefined and gives NaN", code="""
        tail = (1.0 - confidence) / 2.0
        return (float(beta.ppf(tail, successes, trials - successes + 1)),
                float(beta.ppf(1 - tail, successes + 1, trials - successes)))
        """, expect="with 0 successes the lower end is 0"),
    Mistake("word_gop", why="the library's word scores (Pronunciation.words)", code="""
        from course_lib.pronunciation import Pronunciation
        scored = Pronunciation("", tuple(phones), True, float("nan"), float("nan"), ())
        return [(word.word, word.gop) for word in scored.words()]
        """, expect="off limits"),
    Mistake("sentence_summary", why="the library's features (gop_features) and word scores",
            code="""
        from course_lib.pronunciation import GopThresholds, Pronunciation, gop_features
        recipe = speech.gop_thresholds()
        scored = Pronunciation("", tuple(phones), True, float("nan"), float("nan"), ())
        features = gop_features(scored, GopThresholds(low_threshold, recipe.very_low_phone,
                                                      recipe.low_word, recipe.medians))
        worst = min(scored.words(), key=lambda word: word.gop)
        return float(features[0]), float(features[7]), worst.word, worst.gop
        """, expect="off limits"),
    Mistake("exact_interval", why="the library's interval (clopper_pearson_interval)", code="""
        from course_lib.metrics import clopper_pearson_interval
        return clopper_pearson_interval(successes, trials, confidence)
        """, expect="off limits"),
]
