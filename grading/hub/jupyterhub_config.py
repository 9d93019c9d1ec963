"""JupyterHub configuration for the course (demo grade). Started by ``make hub``
(grading/hub/run.py), which sets the environment variables read here.

    HUB_STATE        folder for the hub's database, cookie secret, logs and the students'
                     home folders (default grading/hub/state, git-ignored)
    COURSE_ROOT      the course the instructor serves and grades (default: this repository)
    HUB_PORT         the port the hub answers on, on 127.0.0.1 unless HUB_IP says otherwise
    HUB_PASSWORD     the one password every demo account logs in with (8+ characters)
    HUB_STUDENTS     comma-separated student accounts; HUB_INSTRUCTOR the instructor account
    HUB_SINGLEUSER_ARGS  extra arguments for every user's JupyterLab server

What it sets up: JupyterHub's SharedPasswordAuthenticator (one password for a fixed list
of accounts); SimpleLocalProcessSpawner, which runs each user's JupyterLab as a local process
of the user who started the hub, with a home folder under HUB_STATE/home/; nbgrader's
exchange in COURSE_ROOT/grading/exchange shared by everybody. The instructor's server
serves the course with the course's nbgrader config (formgrader, release, collect);
students' servers get grading/hub/student/ (Assignment List and Validate only).

Not for a real class: every account shares one password and one Unix user, so any
student can read the exchange and the others' files. README ("A class on a JupyterHub")
says what to change.
"""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
state = Path(os.environ.get("HUB_STATE") or HERE / "state").resolve()
course = Path(os.environ.get("COURSE_ROOT") or REPO).resolve()
students = [s.strip() for s in os.environ.get("HUB_STUDENTS", "ada,ben,cy").split(",")
            if s.strip()]
instructor = os.environ.get("HUB_INSTRUCTOR", "instructor")
bindir = Path(sys.executable).parent

# -- the hub and its proxy ------------------------------------------------------------
c.JupyterHub.ip = os.environ.get("HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(os.environ.get("HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("HUB_API_PORT", "0")) or c.JupyterHub.port + 1
c.ConfigurableHTTPProxy.api_url = (
    f"http://127.0.0.1:{int(os.environ.get('HUB_PROXY_API_PORT', '0')) or c.JupyterHub.port + 2}")
c.ConfigurableHTTPProxy.command = [str(HERE / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(state / "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True  # stopping the hub stops every user's server
c.JupyterHub.cleanup_proxy = True
c.JupyterHub.shutdown_on_logout = False
c.JupyterHub.allow_named_servers = False

# -- accounts: demo grade, one shared password ---------------------------------------
# JupyterHub's SharedPasswordAuthenticator: the listed accounts, one password (8+ chars).
# No hub admin: the instructor's powers are nbgrader's (formgrader, the course folder).
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = os.environ.get("HUB_PASSWORD", "course-demo")
c.Authenticator.allowed_users = set(students) | {instructor}

# -- each user's JupyterLab: a local process, a home folder under HUB_STATE -----------
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(state / "home" / "{username}")
c.Spawner.cmd = [str(bindir / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
extra = os.environ.get("HUB_SINGLEUSER_ARGS", "").split()
c.Spawner.args = extra + (["--ServerApp.allow_root=True"] if os.geteuid() == 0 else [])

QUIET_LAB = '{"fetchNews": "false", "checkForUpdates": false}'


def pre_spawn(spawner) -> None:
    """The instructor serves the course with its nbgrader config; a student serves a home
    folder with the student config (course id and the shared exchange only)."""
    name = spawner.user.name
    exchange = course / "grading" / "exchange"
    env = {
        "PATH": os.pathsep.join([str(bindir), os.environ.get("PATH", "/usr/bin:/bin")]),
        "COURSE_EXCHANGE": str(exchange),
        "COURSE_ID": "fast-dl",
    }
    home = Path(spawner.home_dir)
    if name == instructor:
        spawner.notebook_dir = str(course)  # formgrader needs the course under the server root
        env.update(COURSE_ROOT=str(course), JUPYTER_CONFIG_PATH=str(REPO / "grading"))
        for key in ("COURSE_DB_URL", "COURSE_CELL_TIMEOUT"):
            if os.environ.get(key):
                env[key] = os.environ[key]
    else:
        spawner.notebook_dir = str(home)
        env["JUPYTER_CONFIG_PATH"] = str(HERE / "student")
    settings = home / ".jupyter/lab/user-settings/@jupyterlab/apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    quiet = settings / "notification.jupyterlab-settings"
    if not quiet.exists():  # no "Jupyter news?" toast, no update check (offline class)
        quiet.write_text(QUIET_LAB)
    spawner.environment = {**spawner.environment, **env}


c.Spawner.pre_spawn_hook = pre_spawn
