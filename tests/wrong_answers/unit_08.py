"""Typical wrong answers for solutions/08_pronunciation.ipynb (see tests/wrong_answers/__init__.py).

Per task function: a typical slip, which the self-check names in its hint, and an answer that
just calls the library. In Task 1 such an answer passes the visible checks and fails the hidden
test, which runs the function with the library's routes withheld ("off limits"); in Task 2 the
visible checks already run the functions with them switched off, so it fails there, with a
message that names the route and what to do instead.
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
    Mistake("sentence_summary", why="a phone at the threshold counted as low (<= instead of <)",
            code="""
        gop = np.array([phone.gop for phone in phones])
        worst_word, worst_gop = min(word_gop(phones), key=lambda pair: pair[1])
        return float(gop.mean()), float(np.mean(gop <= low_threshold)), worst_word, worst_gop
        """, expect="strictly BELOW the threshold (<, not <=)"),
    Mistake("sentence_summary", why="the notebook's global low_phone used instead of the "
            "argument low_threshold", code="""
        gop = np.array([phone.gop for phone in phones])
        worst_word, worst_gop = min(word_gop(phones), key=lambda pair: pair[1])
        return float(gop.mean()), float(np.mean(gop < low_phone)), worst_word, worst_gop
        """, expect="use the argument low_threshold, not the notebook's low_phone"),

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
    Mistake("exact_interval", why="both ends from one beta distribution (beta.interval of "
            "Beta(k, n - k + 1))", code="""
        return tuple(beta.interval(confidence, successes, trials - successes + 1))
        """, expect="two beta distributions"),
    Mistake("exact_interval", why="no special case for 0 or all successes: Beta(0, n + 1) is "
            "undefined and gives NaN", code="""
        tail = (1.0 - confidence) / 2.0
        return (float(beta.ppf(tail, successes, trials - successes + 1)),
                float(beta.ppf(1 - tail, successes + 1, trials - successes)))
        """, expect="with 0 successes the lower end is 0"),
    Mistake("margin_for_false_flags", why="np.quantile of the margins: an interpolated value "
            "that is no margin, and nan between two -inf margins", code="""
        return float(np.quantile(correct_margins, target)), True
        """, expect="np.quantile interpolates between margins"),
    Mistake("margin_for_false_flags", why="the wrong inequality: the margin one below the "
            "floor(target n)-th, as if a word at the chosen margin were flagged too", code="""
        values = np.sort(np.asarray(correct_margins, dtype=float))
        chosen = values[int(np.floor(target * values.size)) - 1]
        if np.isneginf(chosen):
            return float(values[np.isfinite(values)].min()), False
        return float(chosen), True
        """, expect="strictly BELOW m"),
    Mistake("margin_for_false_flags", why="no floor: the margin of the rule returned even when "
            "it is -inf (more than the target lost outright)", code="""
        values = np.sort(np.asarray(correct_margins, dtype=float))
        return float(values[int(np.floor(target * values.size))]), True
        """, expect="fall back to the smallest FINITE margin"),
    Mistake("margin_for_false_flags", why="ceil instead of floor for the index: with target n "
            "not whole, one word more is flagged than the target allows", code="""
        values = np.sort(np.asarray(correct_margins, dtype=float))
        chosen = values[int(np.ceil(target * values.size))]
        if np.isneginf(chosen):
            return float(values[np.isfinite(values)].min()), False
        return float(chosen), True
        """, expect="round target n down with floor, not up with ceil"),
    Mistake("margin_for_false_flags", why="the words that lost outright dropped before the "
            "share is counted", code="""
        values = np.sort(np.asarray(correct_margins, dtype=float))
        values = values[np.isfinite(values)]
        return float(values[int(np.floor(target * values.size))]), True
        """, expect="keep them in the share"),
    Mistake("margin_for_false_flags", why="the fallback reported as meeting the target", code="""
        values = np.sort(np.asarray(correct_margins, dtype=float))
        chosen = values[int(np.floor(target * values.size))]
        if np.isneginf(chosen):
            return float(values[np.isfinite(values)].min()), True
        return float(chosen), True
        """, expect="met is False exactly when"),
    Mistake("held_out_hit_rate", why="only the replaced words counted as changed", code="""
        replaced = np.asarray(margins["replaced"])
        caught = int(np.sum(replaced < chosen_margin))
        return caught, replaced.size, exact_interval(caught, replaced.size, confidence)
        """, expect="the replaced AND the left-out ones"),
    Mistake("held_out_hit_rate", why="the wrong inequality: a word at the chosen margin "
            "counted as caught", code="""
        changed = np.concatenate([margins["replaced"], margins["left_out"]])
        caught = int(np.sum(changed <= chosen_margin))
        return caught, changed.size, exact_interval(caught, changed.size, confidence)
        """, expect="(<, not <=)"),
    Mistake("held_out_hit_rate", why="the words that lost outright (-inf) dropped as "
            "undecoded", code="""
        changed = np.concatenate([margins["replaced"], margins["left_out"]])
        changed = changed[np.isfinite(changed)]
        caught = int(np.sum(changed < chosen_margin))
        return caught, changed.size, exact_interval(caught, changed.size, confidence)
        """, expect="a word that lost outright (-inf) is caught"),
    Mistake("held_out_hit_rate", why="the normal (Wald) interval for the hit rate instead of "
            "the exact one of (a)", code="""
        changed = np.concatenate([margins["replaced"], margins["left_out"]])
        caught = int(np.sum(changed < chosen_margin))
        share = caught / changed.size
        half = 1.959963984540054 * np.sqrt(share * (1 - share) / changed.size)
        return caught, changed.size, (share - half, share + half)
        """, expect="your function of (a)"),
    Mistake("held_out_hit_rate", why="the confidence argument not passed on, so the interval "
            "is always exact_interval's default 95%", code="""
        changed = np.concatenate([margins["replaced"], margins["left_out"]])
        caught = int(np.sum(changed < chosen_margin))
        return caught, changed.size, exact_interval(caught, changed.size)
        """, expect="pass confidence on to exact_interval"),
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
    Mistake("exact_interval", why="scipy's exact interval, binomtest(...).proportion_ci",
            code="""
        from scipy.stats import binomtest
        interval = binomtest(successes, trials).proportion_ci(confidence, method="exact")
        return interval.low, interval.high
        """, expect="calls scipy.stats.binomtest(...).proportion_ci, which is off limits here"),
    Mistake("exact_interval", why="statsmodels' exact interval, proportion_confint(..., "
            "method='beta') (statsmodels comes with the course's tests)", code="""
        from statsmodels.stats.proportion import proportion_confint
        return proportion_confint(successes, trials, 1 - confidence, method="beta")
        """, expect="compute the interval from the beta distribution's quantiles yourself"),
    Mistake("margin_for_false_flags", why="the course's tuned margin (tuned_decoder_margin)",
            code="""
        from course_lib.pronunciation.detector_rates import tuned_decoder_margin
        return tuned_decoder_margin(), False
        """, expect="off limits"),
    Mistake("held_out_hit_rate", why="the committed held-out counts (load_result)", code="""
        from course_lib.results import load_result
        held = load_result("misread_readings")["result"]["held_out"]
        caught = held["replaced_flagged"]["k"] + held["left_out_flagged"]["k"]
        changed = held["replaced_flagged"]["n"] + held["left_out_flagged"]["n"]
        return caught, changed, exact_interval(caught, changed, confidence)
        """, expect="off limits"),
    Mistake("held_out_hit_rate", why="the library's interval instead of the student's own "
            "exact_interval", code="""
        from course_lib.metrics import clopper_pearson_interval
        changed = np.concatenate([margins["replaced"], margins["left_out"]])
        caught = int(np.sum(changed < chosen_margin))
        return caught, changed.size, clopper_pearson_interval(caught, changed.size, confidence)
        """, expect="off limits"),
]
