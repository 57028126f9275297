"""course_lib.significance: Steiger's Z1* against the closed-form covariance it rests on, checked
by simulation; the bootstrap and the corrected resampled t-test on cases worked by hand; the
cluster bootstrap against the item bootstrap (cases where the two must agree draw for draw),
against scipy.stats.bootstrap drawing the clusters, and against the closed-form variance of a
mean of cluster means."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap, norm, ttest_rel

from course_lib.significance import compare_correlations, paired_bootstrap, \
    paired_cluster_bootstrap, cluster_interval, resampled_t_test, steiger_z1_star


def _trivariate(rho_jk, rho_jh, rho_kh, n, n_sets, rng):
    """n_sets samples of n items from a standard trivariate normal (j, k, h)."""
    cov = np.array([[1.0, rho_jk, rho_jh], [rho_jk, 1.0, rho_kh], [rho_jh, rho_kh, 1.0]])
    draws = rng.standard_normal((n_sets, n, 3)) @ np.linalg.cholesky(cov).T
    centred = draws - draws.mean(axis=1, keepdims=True)
    scale = np.sqrt(np.einsum("snc,snc->sc", centred, centred))

    def corr(a, b):
        return np.einsum("sn,sn->s", centred[..., a], centred[..., b]) / (scale[:, a] * scale[:, b])
    return corr(0, 1), corr(0, 2), corr(1, 2)


def test_z1_star_hand_value():
    # r_jk = 0.6, r_jh = 0.5, r_kh = 0.8, n = 103 worked by hand from the formula:
    # r_bar^2 = 0.3025, psi = 0.8 (1 - 0.605) - 0.15125 (1 - 0.605 - 0.64) = 0.3530563,
    # s = psi / 0.6975^2 = 0.7256973, Z1* = (0.6931472 - 0.5493061) sqrt(100 / 0.5486055)
    # = 1.942016 (two-tailed p = 0.0521)
    z, p = steiger_z1_star(0.6, 0.5, 0.8, 103)
    expected = (np.arctanh(0.6) - np.arctanh(0.5)) * np.sqrt(100 / (2 - 2 * 0.3530563 / 0.6975**2))
    assert z == pytest.approx(expected, rel=1e-6)       # the hand values carry 7 digits
    assert z == pytest.approx(1.942016, abs=1e-6)
    assert p == pytest.approx(0.0521, abs=1e-4)
    assert p == pytest.approx(2 * norm.sf(expected), rel=1e-5)
    assert steiger_z1_star(0.5, 0.6, 0.8, 103)[0] == pytest.approx(-z, rel=1e-12)


def test_z1_star_variance_is_the_simulated_variance_of_the_z_difference():
    """Z1* divides z_jk - z_jh by sqrt((2 - 2 s) / (n - 3)): that must be its standard
    deviation. 4000 simulated data sets of 300 items estimate the variance within a relative
    standard error of sqrt(2 / 4000) = 2.2 %; 5 of those (11 %) separate the right formula from
    its likely slips (the sign of psi's second term gives 800 % too much here, s = r_kh without
    pooling 46 % too little)."""
    rng = np.random.default_rng(20260)
    for rho, rho_kh in ((0.7, 0.9), (0.4, 0.3), (0.85, 0.97)):
        r_jk, r_jh, r_kh = _trivariate(rho, rho, rho_kh, 300, 4000, rng)
        simulated = np.var(np.arctanh(r_jk) - np.arctanh(r_jh), ddof=1)
        # Z1* at the true correlations gives the implied variance: (difference / z)^2
        difference = np.arctanh(rho) - np.arctanh(rho - 0.01)
        z, _ = steiger_z1_star(rho, rho - 0.01, rho_kh, 300)
        implied = (difference / z) ** 2
        assert implied == pytest.approx(simulated, rel=5 * np.sqrt(2 / 4000)), (rho, rho_kh)


def test_z1_star_holds_its_size_under_the_null():
    """Under rho_jk = rho_jh the two-tailed test at 5 % rejects 5 % of 4000 data sets of 100
    items; binomial sd 0.34 %, allowed 4 sd."""
    rng = np.random.default_rng(7)
    r_jk, r_jh, r_kh = _trivariate(0.7, 0.7, 0.8, 100, 4000, rng)
    p = np.array([steiger_z1_star(a, b, c, 100)[1] for a, b, c in zip(r_jk, r_jh, r_kh)])
    assert abs(np.mean(p < 0.05) - 0.05) < 4 * np.sqrt(0.05 * 0.95 / 4000)


def test_compare_correlations_on_data_and_its_edge_cases():
    rng = np.random.default_rng(3)
    reference = rng.standard_normal(200)
    first = reference + rng.standard_normal(200)
    second = reference + 0.5 * rng.standard_normal(200)
    out = compare_correlations(reference, first, second)
    matrix = np.corrcoef([reference, first, second])
    assert out.r_first == pytest.approx(matrix[0, 1], rel=1e-12)
    assert out.z == pytest.approx(steiger_z1_star(matrix[0, 2], matrix[0, 1], matrix[1, 2],
                                                  200)[0], rel=1e-12)
    assert out.z > 3 and out.p_value < 0.01
    same = compare_correlations(reference, first, first.copy())
    assert (same.z, same.p_value) == (0.0, 1.0)
    with pytest.raises(ValueError, match="^second: expected one value per reference item"):
        compare_correlations(reference, first, second[:-1])
    with pytest.raises(ValueError, match="^first: every value is 2"):
        compare_correlations(reference, np.full(200, 2.0), second)
    with pytest.raises(ValueError, match=r"^r_jk: a correlation must lie in \[-1, 1\]"):
        steiger_z1_star(1.5, 0.2, 0.3, 50)
    with pytest.raises(ValueError, match="^n: must be >= 4"):
        steiger_z1_star(0.5, 0.2, 0.3, 3)


def test_paired_bootstrap_agrees_with_the_t_test_for_a_mean_difference():
    """For the mean squared error the bootstrap's interval is about the t interval of the
    per-item differences (same centre; widths agree to within what 4000 resamples and the
    bootstrap's n-not-(n-1) variance allow, 10 %)."""
    rng = np.random.default_rng(11)
    reference = rng.standard_normal(400)
    first = reference + rng.standard_normal(400)
    second = reference + 0.9 * rng.standard_normal(400)

    def mse(ref, prediction):
        return float(np.mean((prediction - ref) ** 2))
    out = paired_bootstrap(mse, reference, first, second, n_resamples=4000, rng=1)
    per_item = (second - reference) ** 2 - (first - reference) ** 2
    assert out.difference == pytest.approx(per_item.mean(), rel=1e-12)
    half_width = 1.96 * per_item.std(ddof=1) / np.sqrt(per_item.size)
    assert (out.interval[1] - out.interval[0]) / 2 == pytest.approx(half_width, rel=0.1)
    t_p = ttest_rel((second - reference) ** 2, (first - reference) ** 2).pvalue
    assert out.p_value == pytest.approx(t_p, abs=0.03)
    with pytest.raises(TypeError, match="^statistic: expected a function"):
        paired_bootstrap(0.5, reference, first, second)


def test_resampled_t_test_by_hand():
    differences = np.array([1.0, 2.0, 3.0, 2.0])          # mean 2, var 2/3
    out = resampled_t_test(differences, n_train=70, n_test=30)
    assert out.t_plain == pytest.approx(2 / np.sqrt((2 / 3) / 4), rel=1e-12)
    assert out.t == pytest.approx(2 / np.sqrt((1 / 4 + 30 / 70) * 2 / 3), rel=1e-12)
    assert out.p_value_plain == pytest.approx(ttest_rel(differences, np.zeros(4)).pvalue,
                                              rel=1e-10)
    assert out.p_value > out.p_value_plain
    with pytest.raises(ValueError, match="^differences: all equal"):
        resampled_t_test([1.0, 1.0, 1.0], 70, 30)


def _pearson(reference, predictions):
    return float(np.corrcoef(reference, predictions)[0, 1])


def _clustered(n_clusters, size, shared_sd, rng):
    """Items in clusters of equal ``size``: a reference, and two models whose errors share an
    offset per cluster (sd ``shared_sd``), as sentences of one speaker share the speaker."""
    labels = np.repeat(np.arange(n_clusters), size)
    reference = rng.standard_normal(labels.size)
    shared = shared_sd * rng.standard_normal(n_clusters)[labels]
    first = reference + rng.standard_normal(labels.size)
    second = reference + shared + 0.8 * rng.standard_normal(labels.size)
    return labels, reference, first, second


def test_cluster_bootstrap_with_every_item_its_own_cluster_is_the_item_bootstrap():
    """Singleton clusters, labelled in item order, make each draw of clusters a draw of items:
    the same seed gives the same resamples, so every number is the same."""
    rng = np.random.default_rng(5)
    reference = rng.standard_normal(150)
    first, second = reference + rng.standard_normal(150), reference + rng.standard_normal(150)
    items = paired_bootstrap(_pearson, reference, first, second, n_resamples=500, rng=9)
    clusters = paired_cluster_bootstrap(_pearson, reference, first, second, np.arange(150),
                                        n_resamples=500, rng=9)
    assert clusters == items


def test_cluster_of_identical_copies_counts_as_one_item():
    """A cluster of m identical copies of one item: resampling the clusters resamples the
    distinct items, and a correlation or a mean does not change when every value is repeated m
    times; so the result is the item bootstrap of the distinct items, draw for draw (equal up
    to the rounding of sums over m copies)."""
    rng = np.random.default_rng(6)
    reference = rng.standard_normal(60)
    first, second = reference + rng.standard_normal(60), reference + 0.7 * rng.standard_normal(60)
    copies = 7
    labels = np.repeat(np.arange(60), copies)
    distinct = paired_bootstrap(_pearson, reference, first, second, n_resamples=800, rng=2)
    repeated = paired_cluster_bootstrap(_pearson, reference[labels], first[labels],
                                        second[labels], labels, n_resamples=800, rng=2)
    assert repeated.difference == pytest.approx(distinct.difference, abs=1e-12)
    assert repeated.interval == pytest.approx(distinct.interval, abs=1e-12)
    assert repeated.p_value == distinct.p_value
    # string labels (speaker ids) name the same clusters; they sort in the same order here
    named = paired_cluster_bootstrap(_pearson, reference[labels], first[labels],
                                     second[labels], np.char.add("spk", np.char.zfill(
                                         labels.astype(str), 3)), n_resamples=800, rng=2)
    assert named == repeated


def test_cluster_bootstrap_agrees_with_scipy_drawing_the_clusters():
    """scipy.stats.bootstrap (percentile method) resampling the cluster labels, with the PCC
    difference computed on every item of the drawn clusters: the same distribution, drawn by
    another generator. Each end of a 95 % percentile interval from 4000 resamples scatters by
    about 0.04 bootstrap sd, the difference of two such ends by 0.06 sd; allowed 0.3 sd."""
    rng = np.random.default_rng(8)
    labels, reference, first, second = _clustered(60, 10, 0.8, rng)
    members = [np.flatnonzero(labels == c) for c in range(60)]

    def difference(drawn):
        rows = np.concatenate([members[c] for c in drawn])
        return _pearson(reference[rows], second[rows]) - _pearson(reference[rows], first[rows])
    theirs = bootstrap((np.arange(60),), difference, vectorized=False, n_resamples=4000,
                       method="percentile", rng=np.random.default_rng(1)).confidence_interval
    ours = paired_cluster_bootstrap(_pearson, reference, first, second, labels,
                                    n_resamples=4000, rng=3)
    sd = (ours.interval[1] - ours.interval[0]) / (2 * 1.96)
    assert ours.interval[0] == pytest.approx(theirs.low, abs=0.3 * sd)
    assert ours.interval[1] == pytest.approx(theirs.high, abs=0.3 * sd)


def test_cluster_bootstrap_of_a_mean_has_the_variance_of_a_mean_of_cluster_means():
    """With equal clusters the mean difference on a resample is the mean of k cluster means
    drawn with replacement, whose variance is (population variance of the cluster means) / k:
    the interval's half width is 1.96 times its square root (k = 100 makes the mean nearly
    normal; 4000 resamples give the width to about 3 %, allowed 8 %). The item bootstrap's is
    1.96 sqrt(variance of the items / n), too narrow when the clusters share an offset."""
    rng = np.random.default_rng(12)
    labels, reference, first, second = _clustered(100, 8, 1.0, rng)

    def mse(ref, prediction):
        return float(np.mean((prediction - ref) ** 2))
    out = paired_cluster_bootstrap(mse, reference, first, second, labels, n_resamples=4000,
                                   rng=4)
    per_item = (second - reference) ** 2 - (first - reference) ** 2
    cluster_means = per_item.reshape(100, 8).mean(axis=1)
    assert out.difference == pytest.approx(per_item.mean(), rel=1e-12)
    half_width = (out.interval[1] - out.interval[0]) / 2
    assert half_width == pytest.approx(1.96 * np.sqrt(np.var(cluster_means) / 100), rel=0.08)
    items = paired_bootstrap(mse, reference, first, second, n_resamples=4000, rng=4)
    item_half_width = (items.interval[1] - items.interval[0]) / 2
    assert item_half_width == pytest.approx(1.96 * np.sqrt(np.var(per_item) / 800), rel=0.08)
    assert half_width > 1.5 * item_half_width


def test_cluster_bootstrap_p_value_and_the_order_of_the_models():
    """Swapping the models negates the difference and mirrors the interval (same draws); the
    p-value is the same, never 0, and large when the models are the same up to noise."""
    rng = np.random.default_rng(13)
    labels, reference, first, second = _clustered(40, 5, 0.5, rng)
    forward = paired_cluster_bootstrap(_pearson, reference, first, second, labels,
                                       n_resamples=1000, rng=7)
    backward = paired_cluster_bootstrap(_pearson, reference, second, first, labels,
                                        n_resamples=1000, rng=7)
    assert backward.difference == pytest.approx(-forward.difference, abs=1e-15)
    assert backward.interval == pytest.approx((-forward.interval[1], -forward.interval[0]),
                                              abs=1e-12)
    assert backward.p_value == forward.p_value >= 1 / 1000
    same = paired_cluster_bootstrap(_pearson, reference, first, first + 1e-9 * np.arange(200),
                                    labels, n_resamples=1000, rng=7)
    assert same.p_value > 0.05


def test_the_cluster_interval_holds_a_known_pcc_about_95_percent_of_the_time():
    rng = np.random.default_rng(3)

    def draw(n_speakers, per_speaker=20):
        shared = rng.normal(0, 1, n_speakers)
        x = np.repeat(shared, per_speaker) + rng.normal(0, 1, n_speakers * per_speaker)
        y = 0.6 * np.repeat(shared, per_speaker) + 0.3 * x + rng.normal(0, 1, x.size)
        return x, y, np.repeat(np.arange(n_speakers), per_speaker)
    x, y, _ = draw(40_000)
    truth = np.corrcoef(x, y)[0, 1]
    held = 0
    draws = 120
    for _ in range(draws):
        x, y, speakers = draw(60)
        low, high, values = cluster_interval(lambda a, b: np.corrcoef(a, b)[0, 1], (x, y),
                                             speakers, n_resamples=300, rng=rng)
        held += low <= truth <= high
    # 95% stated; 120 draws put a true 95% within about 0.89-0.99
    assert 0.87 <= held / draws <= 1.0


def test_the_cluster_interval_resamples_whole_speakers():
    speakers = np.repeat(["a", "b", "c"], [1, 2, 3])
    values = np.repeat([1.0, 2.0, 3.0], [1, 2, 3])
    _, _, drawn = cluster_interval(lambda v: v.size, (values,), speakers, n_resamples=200,
                                   rng=np.random.default_rng(4))
    # three speakers drawn each time: sizes are sums of three of 1, 2, 3
    assert set(drawn) <= {3, 4, 5, 6, 7, 8, 9}


def test_the_cluster_interval_names_a_bad_argument():
    with pytest.raises(ValueError, match="^clusters:"):
        cluster_interval(np.mean, (np.zeros(4),), np.zeros(3))
    with pytest.raises(ValueError, match="^arrays:"):
        cluster_interval(np.mean, (np.zeros(4), np.zeros(3)), np.arange(4))
    with pytest.raises(TypeError, match="^statistic:"):
        cluster_interval("mean", (np.zeros(4),), np.arange(4))
