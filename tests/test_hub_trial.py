"""The hub trial's pieces that need no hub: its config, the nbgitpuller link, its committed results.

The trial itself (tools/hub_trial.py) needs npm and several minutes; its result is the committed
docs/hub-trial.json, whose numbers docs/TEACHING.md quotes and whose sizing rule must follow
from its own measurements. The class's rating round (issue 47) adds nbgrader's configs, the code
a student's kernel runs to answer, the check of the Assignments tab's replies and the costs.
"""

import importlib.util
import ipaddress
import json
import re
import urllib.parse
from pathlib import Path

import pytest
from traitlets.config import Config

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "hub-trial.json"
TEACHING = ROOT / "docs" / "TEACHING.md"


def load_tool():
    spec = importlib.util.spec_from_file_location("hub_trial", ROOT / "tools" / "hub_trial.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hub_trial = load_tool()


def rendered_config(tmp_path, as_root):
    text = hub_trial.render_config(tmp_path, service_token="t" * 64, user_password="classroom1",
                                   as_root=as_root)
    config = Config()
    exec(compile(text, "jupyterhub_config.py", "exec"), {"get_config": lambda: config})
    return text, config


def host_of(url):
    return urllib.parse.urlsplit(url).hostname


@pytest.mark.parametrize("as_root", [False, True])
def test_config_binds_every_listener_to_the_loopback(tmp_path, as_root):
    text, config = rendered_config(tmp_path, as_root)
    assert "${" not in text, "a template field was left unfilled"
    listeners = {
        "JupyterHub.bind_url": host_of(config.JupyterHub.bind_url),
        "JupyterHub.hub_ip": config.JupyterHub.hub_ip,
        "ConfigurableHTTPProxy.api_url": host_of(config.ConfigurableHTTPProxy.api_url),
        "Spawner.ip": config.Spawner.ip,
    }
    for name, host in listeners.items():
        assert ipaddress.ip_address(host).is_loopback, f"{name} listens on {host}"
    # every other setting that could open a port elsewhere is absent
    assert "0.0.0.0" not in text and "ip = ''" not in text and 'ip = ""' not in text
    ports = {urllib.parse.urlsplit(config.JupyterHub.bind_url).port, config.JupyterHub.hub_port,
             urllib.parse.urlsplit(config.ConfigurableHTTPProxy.api_url).port}
    assert len(ports) == 3, f"the hub's listeners share a port: {ports}"
    assert ("--allow-root" in config.Spawner.args) == as_root


def test_config_keeps_state_and_homes_in_the_workdir(tmp_path):
    _, config = rendered_config(tmp_path, False)
    workdir = str(tmp_path.resolve())
    assert config.JupyterHub.db_url == f"sqlite:///{workdir}/jupyterhub.sqlite"
    assert config.JupyterHub.cookie_secret_file.startswith(workdir)
    assert config.SimpleLocalProcessSpawner.home_dir_template == f"{workdir}/homes/{{username}}"
    assert config.Spawner.cmd == [f"{workdir}/env/bin/jupyterhub-singleuser"]
    assert config.ConfigurableHTTPProxy.command[0].startswith(f"{workdir}/proxy/")
    # one BLAS thread per student's kernel, a numba cache in each student's home
    assert config.Spawner.environment["OPENBLAS_NUM_THREADS"] == "1"

    class FakeSpawner:
        home_dir = "/homes/ada"
    assert config.Spawner.environment["NUMBA_CACHE_DIR"](FakeSpawner) == "/homes/ada/.cache/numba"


def test_config_with_a_class_wide_numba_cache(tmp_path):
    text = hub_trial.render_config(tmp_path, service_token="t" * 64, user_password="classroom1",
                                   numba_cache="shared")
    config = Config()
    exec(compile(text, "jupyterhub_config.py", "exec"), {"get_config": lambda: config})
    assert config.Spawner.environment["NUMBA_CACHE_DIR"] == f"{tmp_path.resolve()}/numba-cache"


def test_config_rejects_bad_settings(tmp_path):
    with pytest.raises(ValueError, match="user_password"):
        hub_trial.render_config(tmp_path, service_token="t" * 64, user_password="short")
    with pytest.raises(ValueError, match="numba_cache"):
        hub_trial.render_config(tmp_path, service_token="t" * 64, user_password="classroom1",
                                numba_cache="global")


def test_nbgitpuller_link_for_a_worked_example():
    link = hub_trial.nbgitpuller_link(
        "https://hub.example.edu/", "https://github.com/someone/speech-course",
        "exercises/01_dtw.ipynb", branch="main")
    base, query = link.split("?", 1)
    assert base == "https://hub.example.edu/hub/user-redirect/git-pull"
    assert urllib.parse.parse_qs(query) == {
        "repo": ["https://github.com/someone/speech-course"], "branch": ["main"],
        "urlpath": ["lab/tree/speech-course/exercises/01_dtw.ipynb"]}
    # the repository and path are percent-encoded (no raw slash or colon in the query values)
    assert "repo=https%3A%2F%2Fgithub.com%2Fsomeone%2Fspeech-course&" in query
    assert "urlpath=lab%2Ftree%2Fspeech-course%2Fexercises%2F01_dtw.ipynb" in query


def test_nbgitpuller_link_from_a_local_clone_and_classic_tree():
    link = hub_trial.nbgitpuller_link("http://127.0.0.1:18000", "/work/hub/course", "",
                                      branch="teaching", app="tree")
    query = urllib.parse.parse_qs(link.split("?", 1)[1])
    assert query == {"repo": ["/work/hub/course"], "branch": ["teaching"],
                     "urlpath": ["tree/course"]}
    # nbgitpuller keeps a ".git" ending in the folder name
    assert hub_trial.repo_folder("file:///srv/git/course.git/") == "course.git"


@pytest.mark.parametrize("kwargs, argument", [
    ({"hub_url": "hub.example.edu"}, "hub_url"),
    ({"branch": ""}, "branch"),
    ({"app": "notebook"}, "app"),
    ({"repo": "/"}, "repo"),
])
def test_nbgitpuller_link_rejects_bad_arguments(kwargs, argument):
    call = {"hub_url": "https://hub.example.edu", "repo": "https://example.org/c.git",
            "path": "lectures/01_dtw.ipynb", **kwargs}
    branch = call.pop("branch", "main")
    app = call.pop("app", "lab")
    with pytest.raises(ValueError, match=argument):
        hub_trial.nbgitpuller_link(call["hub_url"], call["repo"], call["path"], branch=branch,
                                   app=app)


def load_trials():
    return json.loads(RESULTS.read_text(encoding="utf-8"))["trials"]


@pytest.fixture(scope="module")
def trials():
    return load_trials()


def test_results_hold_one_trial_per_numba_cache_mode(trials):
    assert [t["settings"]["numba_cache_mode"] for t in trials] == list(hub_trial.NUMBA_CACHES)


@pytest.mark.parametrize("mode", hub_trial.NUMBA_CACHES)
def test_results_record_settings_versions_machine_and_rounds(trials, mode):
    trial = next(t for t in trials if t["settings"]["numba_cache_mode"] == mode)
    for key in ("settings", "versions", "machine", "rounds", "sizing"):
        assert key in trial, f"the {mode} trial in docs/hub-trial.json lacks {key}"
    for package in ("jupyterhub", "nbgitpuller", "configurable-http-proxy", "jupyterlab",
                    "python"):
        assert trial["versions"].get(package), f"no version recorded for {package}"
    assert trial["settings"]["notebook"] in {
        f"{folder}/{path.name}" for folder in ("exercises", "solutions")
        for path in (ROOT / folder).glob("*.ipynb")}
    sizes = [r["n_users"] for r in trial["rounds"]]
    assert sizes == sorted(sizes) and sizes[0] == 1
    for round_ in trial["rounds"]:
        assert len(round_["users"]) == round_["n_users"]
        for user in round_["users"]:
            for key in ("spawn_seconds", "pull_seconds", "run_seconds", "run_cpu_seconds",
                        "peak_rss_mib"):
                assert user[key] > 0, f"{key} of {user['user']} is not positive"
            assert user["errors"] == [], f"{user['user']}'s notebook failed: {user['errors']}"
            assert 0 < user["peak_server_rss_mib"] < user["peak_rss_mib"]
        assert round_["max_run_seconds"] == max(u["run_seconds"] for u in round_["users"])
        assert set(round_["load_average_1min"]) == {"before", "max_during", "after"}


@pytest.mark.parametrize("mode", hub_trial.NUMBA_CACHES)
def test_sizing_rule_follows_from_the_measurements(trials, mode):
    trial = next(t for t in trials if t["settings"]["numba_cache_mode"] == mode)
    sizing = trial["sizing"]
    recomputed = hub_trial.sizing_rule(trial["rounds"], limit=sizing["limit_seconds"],
                                       cores=trial["machine"]["cores"])
    assert sizing == recomputed
    # the rounds stop at the first one over the limit: no round after it
    over = [r["n_users"] for r in trial["rounds"]
            if r["max_run_seconds"] >= sizing["limit_seconds"]]
    assert over == [] or over == [trial["rounds"][-1]["n_users"]]


def test_sizing_rule_of_a_small_example():
    def student(run, cpu, rss):
        return {"run_seconds": run, "run_cpu_seconds": cpu, "peak_rss_mib": rss}
    rounds = [{"n_users": 1, "users": [student(10, 9, 400)]},
              {"n_users": 2, "users": [student(20, 9, 420), student(21, 10, 410)]},
              {"n_users": 4, "users": [student(61, 10, 430)] + [student(55, 11, 415)] * 3}]
    rule = hub_trial.sizing_rule(rounds, limit=60, cores=2)
    assert rule == {"limit_seconds": 60, "cores": 2, "served_at_once": 2,
                    "memory_per_user_mib": 430, "cpu_seconds_per_notebook": 10.0,
                    "users_per_core": 1.0, "users_per_core_cpu_bound": 6}
    with pytest.raises(ValueError, match="rounds"):
        hub_trial.sizing_rule([], limit=60, cores=2)


# the rows of the sizing table in docs/TEACHING.md: label -> key of a trial's "sizing"
SIZING_ROWS = {
    "students at once, every notebook under a minute": "served_at_once",
    "CPU seconds per notebook (median)": "cpu_seconds_per_notebook",
    "notebooks per core within a minute (60 s / CPU seconds)": "users_per_core_cpu_bound",
    "peak memory per student (server + kernel), MiB": "memory_per_user_mib",
}


def test_teaching_guide_quotes_the_measured_numbers(trials):
    text = TEACHING.read_text(encoding="utf-8")
    for label, key in SIZING_ROWS.items():
        cells = r"\s*\|\s*".join(re.escape(str(trial["sizing"][key])) for trial in trials)
        assert re.search(rf"\|\s*{re.escape(label)}\s*\|\s*{cells}\s*\|", text), \
            f"docs/TEACHING.md's sizing table has no row {label!r} with the measured values"
    assert f"JupyterHub {trials[0]['versions']['jupyterhub']}" in text
    # every unit the course has appears in the time plan
    for notebook in sorted((ROOT / "lectures").glob("*.ipynb")):
        assert re.search(rf"^\|\s*{int(notebook.stem[:2])}\s*\|", text, re.MULTILINE), \
            f"the time plan in docs/TEACHING.md has no row for {notebook.stem}"


def test_teaching_guide_quotes_the_class_rounds_measured_cost():
    """The class round's costs in section 7 are those of docs/hub-trial-class-round.json."""
    (trial,) = json.loads((ROOT / "docs" / "hub-trial-class-round.json").read_text(
        encoding="utf-8"))["trials"]
    cost = trial["class_panel_cost"]
    text = " ".join(TEACHING.read_text(encoding="utf-8").split())

    def span(key):
        values = [lecturer[key] for lecturer in cost["lecturer_by_round"]]
        return f"{min(values):.1f}-{max(values):.1f} s"

    assert (f"added {cost['added_seconds_per_student_median']:.1f} s per student (median; at "
            f"most {cost['added_seconds_per_student_max']:.1f} s) and "
            f"{cost['added_cpu_seconds_per_student_median']:.1f} CPU-seconds") in text
    assert (f"`nbgrader collect` took {span('nbgrader_collect_seconds')}, `class-panel "
            f"collect` {span('collect_seconds')} and the class notebook "
            f"{span('class_notebook_seconds')}") in text


def test_teaching_guide_worked_link_is_what_the_tool_prints(capsys):
    arguments = ["https://hub.example.edu", "https://github.com/ORG/speech-course-student",
                 "exercises/01_dtw.ipynb"]
    assert hub_trial.main(["--print-link", *arguments]) == 0
    link = capsys.readouterr().out.strip()
    assert link == hub_trial.nbgitpuller_link(*arguments, branch="main")
    assert link in TEACHING.read_text(encoding="utf-8"), \
        "docs/TEACHING.md's worked nbgitpuller link differs from what the tool builds"


# ---------------------------------------------------------------------------------------------
# The class's rating round (issue 47): nbgrader on the hub, the student's answers, the costs

def exec_config(text):
    config = Config()
    exec(compile(text, "config.py", "exec"), {"get_config": lambda: config})
    return config


def test_config_gives_students_nbgrader_config_and_the_class_corpus(tmp_path):
    workdir = tmp_path.resolve()
    _, config = rendered_config(tmp_path, False)
    environment = config.Spawner.environment
    assert environment["JUPYTER_CONFIG_PATH"] == f"{workdir}/nbgrader/students"
    assert environment["COURSE_SPEECHOCEAN762"] == f"{workdir}/speechocean762"
    assert environment["COURSE_FSDD"] == f"{workdir}/fsdd"
    # students keep nbgrader's Assignments tab; the formgrader and course list are the lecturer's
    disabled = {arg.split(".")[-1] for arg in config.Spawner.args if "jpserver_extensions" in arg}
    assert disabled == {"formgrader=False", "course_list=False"}
    text = hub_trial.render_config(tmp_path, service_token="t" * 64, user_password="classroom1",
                                   corpus=tmp_path / "shared" / "corpus")
    assert exec_config(text).Spawner.environment["COURSE_SPEECHOCEAN762"] == \
        f"{workdir}/shared/corpus"


def test_nbgrader_configs_share_the_course_and_an_exchange_in_the_workdir(tmp_path,
                                                                          monkeypatch):
    workdir = tmp_path.resolve()
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    lecturer = exec_config(hub_trial.nbgrader_config(tmp_path, lecturer=True))
    alone = exec_config(hub_trial.nbgrader_config(tmp_path))
    monkeypatch.setenv("JUPYTERHUB_USER", "r2s1")
    student = exec_config(hub_trial.nbgrader_config(tmp_path))
    for config in (lecturer, student):
        assert config.Exchange.root == f"{workdir}/nbgrader/exchange"
        assert config.CourseDirectory.course_id == hub_trial.CLASS_COURSE_ID
    # every server runs as one system user: the hub's user name is the student's id
    assert student.CourseDirectory.student_id == "r2s1"
    assert "student_id" not in alone.CourseDirectory
    assert "student_id" not in lecturer.CourseDirectory
    assert lecturer.CourseDirectory.db_url == f"sqlite:///{workdir}/nbgrader/course/gradebook.db"
    assert lecturer.CollectApp.check_owner is False


def test_rating_code_scores_every_clip_and_collect_counts_the_sheet(tmp_path, monkeypatch):
    """Runs the code a student's kernel runs (it reads speechocean762's scores, as there)."""
    from course_lib.class_panel.activities import rate_activity
    from course_lib.class_panel.collect import collect
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COURSE_CLASS_HOME", str(tmp_path / "home"))
    exec(compile(hub_trial.rating_code(2026, 7), "kernel", "exec"), {})
    saved = json.loads((tmp_path / hub_trial.CLASS_SHEET).read_text(encoding="utf-8"))
    n_clips = len(rate_activity(2026).items)
    assert len(saved["answers"]) == n_clips and all(0 <= a <= 10 for a in saved["answers"])
    collection = collect(tmp_path, rate_activity(2026))
    assert len(collection.rate_raters) == 1 and collection.rate_labels[0].size == n_clips
    assert hub_trial.collected_students(collection.summary()) == 1
    assert "rate_activity(7)" in hub_trial.rating_code(7, 0)
    with pytest.raises(ValueError, match="answers_seed"):
        hub_trial.rating_code(2026, -1)


def test_collected_students_needs_the_summary_line():
    assert hub_trial.collected_students("4 file(s) read in /x: ...\n3 student(s); 3 rated") == 3
    with pytest.raises(ValueError, match="printed"):
        hub_trial.collected_students("nothing collected")


@pytest.mark.parametrize("reply, action, problem", [
    ({"success": True, "value": [{"assignment_id": "class_rate", "status": "fetched"}]},
     "fetch", None),
    ({"success": True, "value": [{"assignment_id": "class_rate", "status": "released"},
                                 {"assignment_id": "class_rate", "status": "submitted"}]},
     "submit", None),
    ({"success": False, "value": "Traceback ...\nExchangeError: Inbound directory doesn't "
                                 "exist"}, "submit", "nbgrader's submit failed: Traceback"),
    ({"success": True, "value": [{"assignment_id": "class_rate", "status": "released"}]},
     "fetch", "not class_rate fetched"),
    ([], "fetch", "nbgrader's fetch failed"),
])
def test_assignment_reply_says_what_the_tab_shows(reply, action, problem):
    found = hub_trial.assignment_reply_problem(reply, action)
    assert found == problem if problem is None else problem in found


def test_missing_class_notebook_stops_the_trial_saying_what_to_do(tmp_path):
    args = hub_trial.parse_args(["--workdir", str(tmp_path), "--class-notebook", "class/x.ipynb"])
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "rate.ipynb").write_text("{}", encoding="utf-8")
    with pytest.raises(SystemExit, match="--class-notebook class/x.ipynb.*--no-class-panel"):
        hub_trial.check_class_notebooks(args, tmp_path)
    (tmp_path / "class" / "x.ipynb").write_text("{}", encoding="utf-8")
    hub_trial.check_class_notebooks(args, tmp_path)
    assert not hub_trial.parse_args(["--no-class-panel"]).class_panel


def test_class_panel_cost_of_a_small_example():
    def student(seconds, cpu):
        return {"class_seconds": seconds, "class_cpu_seconds": cpu}
    lecturer = {"wall_seconds": 9.0, "nbgrader_collect_seconds": 2.0, "collect_seconds": 1.5,
                "students_collected": 1, "class_notebook_seconds": 6.0}
    rounds = [{"n_users": 1, "users": [student(3.0, 1.5)], "class_panel": lecturer},
              {"n_users": 2, "users": [student(4.0, 1.6), student(6.0, 1.8)],
               "class_panel": {**lecturer, "students_collected": 2}}]
    assert hub_trial.class_panel_cost(rounds) == {
        "added_seconds_per_student_median": 4.0, "added_seconds_per_student_max": 6.0,
        "added_cpu_seconds_per_student_median": 1.6,
        "lecturer_by_round": [{"n_users": 1, **lecturer},
                              {"n_users": 2, **lecturer, "students_collected": 2}]}
    with pytest.raises(ValueError, match="rounds"):
        hub_trial.class_panel_cost([{"n_users": 1, "users": [{"run_seconds": 3}]}])


def test_committed_class_round_costs_follow_from_the_measurements(trials):
    """Every committed trial that ran the class's rating round (none before issue 47's first
    hub run) states costs computed from its own rounds, with every student collected."""
    for trial in trials:
        if trial["settings"].get("class_panel") is None:
            assert "class_panel_cost" not in trial
            continue
        assert trial["class_panel_cost"] == hub_trial.class_panel_cost(trial["rounds"])
        for round_ in trial["rounds"]:
            assert round_["class_panel"]["students_collected"] == round_["n_users"]
            assert all(user["class_errors"] == [] for user in round_["users"])
