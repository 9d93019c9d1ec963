"""JupyterHub configuration for the course. Started by ``make hub`` (grading/hub/run.py),
which makes the accounts, the users' environment, the course's permissions and the
exchange, then sets the environment variables read here:

    HUB_STATE        the hub's database, cookie secret and logs (default grading/hub/state,
                     git-ignored, root's alone)
    COURSE_ROOT      the course the instructor serves and grades (default: this repository)
    HUB_PORT         the port the hub answers on, on 127.0.0.1 unless HUB_IP says otherwise
    HUB_PASSWORD     the one password every account logs in with (8+ characters)
    HUB_STUDENTS     comma-separated student accounts; HUB_INSTRUCTOR the instructor account
    HUB_USER_BIN     the users' environment's bin folder (a Python every user can run)
    HUB_STUDENT_CONFIG, HUB_INSTRUCTOR_CONFIG  copies of grading/hub/student/ and
                     instructor/ that every account can read (outside the course)
    COURSE_EXCHANGE  nbgrader's exchange (outside the course)
    HUB_SINGLEUSER_ARGS  extra arguments for every user's JupyterLab server

What it sets up: JupyterHub's SharedPasswordAuthenticator (one password for a fixed list
of accounts: the one thing here that is demo grade); LocalProcessSpawner, which runs each
user's JupyterLab as that user's own Unix account in its home folder (never as root); the
instructor's server serves the course with the course's nbgrader config (formgrader,
release, collect) and lets JupyterLab frame the formgrader; students' servers get
HUB_STUDENT_CONFIG (Assignment List and Validate, no formgrader) and cannot read the
course. Nothing here is tied to local processes but the spawner: KubeSpawner
(zero-to-jupyterhub) or DockerSpawner replace it, docs/servers.md says what else a real class adds.
"""

import os
from pathlib import Path

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
state = Path(os.environ.get("HUB_STATE") or HERE / "state").resolve()
course = Path(os.environ.get("COURSE_ROOT") or REPO).resolve()
students = [s.strip() for s in os.environ.get("HUB_STUDENTS", "ada,ben,cy").split(",")
            if s.strip()]
instructor = os.environ.get("HUB_INSTRUCTOR", "instructor")
bindir = Path(os.environ.get("HUB_USER_BIN") or "/opt/fast-dl-hub/env/bin")
student_config = Path(os.environ.get("HUB_STUDENT_CONFIG") or "/opt/fast-dl-hub/student")
instructor_config = Path(os.environ.get("HUB_INSTRUCTOR_CONFIG")
                         or "/opt/fast-dl-hub/instructor")
exchange = Path(os.environ.get("COURSE_EXCHANGE") or "/srv/nbgrader/fast-dl")

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

# -- accounts: one shared password (demo grade; a class uses its institution's login) --
# No hub admin: the instructor's powers are nbgrader's (formgrader, the course folder).
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = os.environ.get("HUB_PASSWORD", "course-demo")
c.Authenticator.allowed_users = set(students) | {instructor}

# -- each user's JupyterLab: a process of that user's Unix account ----------------------
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [str(bindir / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.Spawner.args = os.environ.get("HUB_SINGLEUSER_ARGS", "").split()
# the hub's own environment (its secrets' paths, the course's) is not passed on
c.Spawner.env_keep = ["LANG", "LC_ALL", "TZ"]

QUIET_LAB = '{"fetchNews": "false", "checkForUpdates": false}'


def pre_spawn(spawner) -> None:
    """The instructor serves the course with its nbgrader config; a student serves their
    home folder with the student config (course id and the shared exchange only)."""
    import pwd

    name = spawner.user.name
    entry = pwd.getpwnam(name)
    if entry.pw_uid == 0:
        raise RuntimeError(f"{name} is root: a user's server never runs as root")
    env = {
        "PATH": os.pathsep.join([str(bindir), "/usr/local/bin:/usr/bin:/bin"]),
        "COURSE_EXCHANGE": str(exchange),
        "COURSE_ID": "fast-dl",
    }
    home = Path(entry.pw_dir)
    if name == instructor:
        spawner.notebook_dir = str(course)  # formgrader needs the course under the server root
        env.update(COURSE_ROOT=str(course),
                   JUPYTER_CONFIG_PATH=os.pathsep.join([str(instructor_config),
                                                        str(course / "grading")]))
        for key in ("COURSE_DB_URL", "COURSE_CELL_TIMEOUT"):
            if os.environ.get(key):
                env[key] = os.environ[key]
    else:
        spawner.notebook_dir = str(home)
        env["JUPYTER_CONFIG_PATH"] = str(student_config)
    settings = home / ".jupyter/lab/user-settings/@jupyterlab/apputils-extension"
    quiet = settings / "notification.jupyterlab-settings"
    if not quiet.exists():  # no "Jupyter news?" toast, no update check (offline class)
        made = [p for p in [*reversed(quiet.parents), quiet] if home in p.parents
                and not p.exists()]
        settings.mkdir(parents=True, exist_ok=True)
        quiet.write_text(QUIET_LAB)
        for p in made:
            os.chown(p, entry.pw_uid, entry.pw_gid)
    spawner.environment = {**spawner.environment, **env}


c.Spawner.pre_spawn_hook = pre_spawn
