"""gunicorn's access line is built only when gunicorn.access writes it
(service.workers.Logger): the service's settings log their own access line
from the app, so gunicorn's would be built on every request and dropped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json
from gunicorn.config import Config
import service.gunicorn_settings as settings

def enabled(**values):
    cfg = Config()
    for name, value in values.items():
        cfg.set(name, value)
    return cfg.logger_class(cfg).access_log_enabled

print(json.dumps({
    "service": enabled(logconfig_dict=settings.logconfig_dict, errorlog="-",
                       logger_class=settings.logger_class),
    "access_file": enabled(accesslog="-", logger_class=settings.logger_class),
    "gunicorn_default": enabled(logconfig_dict=settings.logconfig_dict, errorlog="-"),
}))
"""


def test_the_access_line_is_built_only_when_written(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    # The service's settings: gunicorn.access writes nothing, so nothing is built
    # (gunicorn's own logger would build it: logconfig_dict is set).
    assert found == {"service": False, "access_file": True, "gunicorn_default": True}
