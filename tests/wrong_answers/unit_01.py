"""Typical wrong answers for solutions/01_dtw.ipynb (see tests/wrong_answers/__init__.py)."""

from wrong_answers import Mistake

MISTAKES = [
    Mistake("dtw_accumulate", why="the diagonal step weighs 1 like the others", code="""
        for i in range(n):
            for j in range(m):
                if not allowed[i, j]:
                    continue
                if i == 0 and j == 0:
                    D[i, j] = 2 * cost[i, j]
                    continue
                best = np.inf
                if i > 0 and j > 0:
                    best = D[i - 1, j - 1] + cost[i, j]
                if j > 0:
                    best = min(best, D[i, j - 1] + cost[i, j])
                if i > 0:
                    best = min(best, D[i - 1, j] + cost[i, j])
                D[i, j] = best
        """, expect="a diagonal step adds 2 d(i, j)"),
    Mistake("backtrack", why="the path is collected from the end and never flipped", code="""
        i, j = n - 1, m - 1
        path = [(i, j)]
        while (i, j) != (0, 0):
            candidates = []
            if i > 0 and j > 0:
                candidates.append((D[i - 1, j - 1] + 2 * cost[i, j], i - 1, j - 1))
            if j > 0:
                candidates.append((D[i, j - 1] + cost[i, j], i, j - 1))
            if i > 0:
                candidates.append((D[i - 1, j] + cost[i, j], i - 1, j))
            _, i, j = min(candidates, key=lambda candidate: candidate[0])
            path.append((i, j))
        return np.array(path, dtype=int)
        """, expect="reverse order"),
    Mistake("sakoe_chiba_mask", why="the textbook band |j - i| <= r, not widened for n != m",
            code="""
        offset = np.arange(m)[None, :] - np.arange(n)[:, None]
        return np.abs(offset) <= r
        """, expect="widen the band by |n - m|"),
    Mistake("evaluate", why="confusion counted as [predicted, true]", code="""
        confusion = np.zeros((n_classes, n_classes), dtype=int)
        for a, b in zip(true_labels, predicted):
            confusion[b, a] += 1
        return float(np.mean(true_labels == predicted)), confusion
        """, expect="rows are the true class"),
    Mistake("classify", why="the class with the largest distance is chosen", code="""
        reduce = np.min if combine == "min" else np.mean
        predicted = []
        for row in distances:
            scores = [reduce(row[template_labels == c]) for c in classes]
            predicted.append(classes[int(np.argmax(scores))])
        return np.array(predicted)
        """, expect="smallest distance wins"),
    Mistake("subsequence_match", why="only D(0, 0) is initialised: the match must start at 0",
            code="""
        came_from = np.zeros((n, m), dtype=int)
        D[0, 0] = cost[0, 0]
        for i in range(1, n):
            for j in range(m):
                best, origin = np.inf, -1
                for step in (0, 1, 2):
                    if j - step >= 0 and D[i - 1, j - step] < best:
                        best, origin = D[i - 1, j - step], j - step
                D[i, j] = best + cost[i, j]
                came_from[i, j] = origin
        matching_cost = D[n - 1] / n
        end = int(np.argmin(matching_cost))
        start = end
        for i in range(n - 1, 0, -1):
            start = came_from[i, start]
        return int(start), end, matching_cost
        """, expect="D(0, j) = d(0, j) for all j"),
    Mistake("trim_to_speech", why="the kept span ends where the last speech frame starts",
            code="""
        frame = round(0.010 * sample_rate)
        n_frames = len(samples) // frame
        rms = np.sqrt(np.mean(samples[:n_frames * frame].reshape(n_frames, frame) ** 2, axis=1))
        if rms.max() == 0:
            raise ValueError("silent")
        speech = np.flatnonzero(rms >= rms.max() * 10 ** (-threshold_db / 20))
        margin = round(margin_s * sample_rate)
        start = max(0, speech[0] * frame - margin)
        end = min(len(samples), speech[-1] * frame + margin)
        return samples[start:end]
        """, expect="keep the last speech frame to its end"),
    Mistake("trim_to_speech", why="no margin around the speech frames", code="""
        frame = round(0.010 * sample_rate)
        n_frames = len(samples) // frame
        rms = np.sqrt(np.mean(samples[:n_frames * frame].reshape(n_frames, frame) ** 2, axis=1))
        if rms.max() == 0:
            raise ValueError("silent")
        speech = np.flatnonzero(rms >= rms.max() * 10 ** (-threshold_db / 20))
        return samples[speech[0] * frame:(speech[-1] + 1) * frame]
        """, expect="widen the kept span by margin_s"),
    Mistake("trim_to_speech", why="the course's own trimmer called instead of written", code="""
        from course_lib.recording import trim_silence
        return trim_silence(samples, sample_rate, margin_s=margin_s)[0]
        """, expect="off limits"),
]
