"""`referee serve` as a user runs it: gunicorn plus the embedded Redis; a table
survives a stop and a start; `referee openapi` writes the committed spec."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.processes import stop_process, wait_ready

from .conftest import free_port

ROOT = Path(__file__).resolve().parent.parent


def call(method: str, url: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def start_service(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    """``referee serve`` on its embedded Redis in ``data_dir``; its log in
    ``data_dir``'s folder (``serve.log``), appended to."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(PORT=str(port), REFEREE_DATA_DIR=str(data_dir), WEB_CONCURRENCY="2")
    with open(data_dir.parent / "serve.log", "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    # 60 s: a busy machine; a start that fails is stopped with SIGTERM, so
    # that `referee serve` stops the embedded Redis it started (SIGKILL would
    # leave that one running, with nobody to stop it).
    if wait_ready(proc, f"http://127.0.0.1:{port}/readyz", 60, port):
        return proc
    stop_process(proc, 30)
    raise RuntimeError("the service did not become ready")


def gunicorn_workers(master: int) -> list[int]:
    """The pids of ``master``'s gunicorn workers (its children but the embedded
    Redis; a child that ended between the listing and the read is left out)."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    workers = []
    for pid in children:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
        except FileNotFoundError:
            continue
        if b"redis" not in command:
            workers.append(int(pid))
    return workers


def stop_service(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(30) == 0
    finally:
        stop_process(proc, 10)  # never left running, whatever the assertion says


def test_serve_with_embedded_redis_keeps_tables_across_a_restart(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_service(tmp_path / "data", port)
    try:
        status, created = call(
            "POST", f"{base}/v1/tables", {"players": ["A", "B", "C", "D"], "first_dealer": 0}
        )
        assert status == 201
        table_id, host = created["table_id"], created["host_token"]
        assert call("POST", f"{base}/v1/tables/{table_id}/rounds", {}, host)[0] == 201
        # A gunicorn worker ended as the master ends a timed-out one (SIGABRT:
        # sys.exit in the fork) leaves the embedded Redis serving the others.
        workers = gunicorn_workers(proc.pid)
        assert len(workers) == 2, workers
        os.kill(workers[0], signal.SIGABRT)
        for _ in range(400):
            now = gunicorn_workers(proc.pid)
            log = (tmp_path / "serve.log").read_text()
            if len(now) == 2 and workers[0] not in now:
                replaced = next(p for p in now if p != workers[1])
                if f"Worker ready (pid: {replaced})" in log:  # its app loaded
                    break
            time.sleep(0.05)
        else:
            raise AssertionError("gunicorn did not replace its worker")
        assert (tmp_path / "data" / "redis.sock").exists()
        for _ in range(4):  # both workers, whichever answers
            assert call("GET", f"{base}/readyz")[0] == 200
            assert call("GET", f"{base}/v1/tables/{table_id}")[0] == 200
    finally:
        stop_service(proc)
    assert not (tmp_path / "data" / "redis.sock").exists()  # the embedded Redis stopped too
    proc = start_service(tmp_path / "data", port)
    try:
        status, view = call("GET", f"{base}/v1/tables/{table_id}")
        assert status == 200
        assert view["round"]["number"] == 1 and view["round"]["status"] == "passing"
        assert call("POST", f"{base}/v1/tables/{table_id}/rounds", {}, host)[0] == 409
    finally:
        stop_service(proc)


def test_committed_openapi_matches_the_code(tmp_path: Path) -> None:
    out = tmp_path / "openapi.yaml"
    subprocess.run([sys.executable, "-m", "service.cli", "openapi", "-o", str(out)], check=True)
    committed = (ROOT / "openapi.yaml").read_text()
    assert out.read_text() == committed, "openapi.yaml is out of date: run `referee openapi`"


def test_served_spec_and_docs_page(client: Any) -> None:
    served = client.get("/openapi.yaml")
    assert served.status_code == 200 and served.mimetype == "application/yaml"
    assert served.get_data(as_text=True) == (ROOT / "openapi.yaml").read_text()
    docs = client.get("/docs")
    assert docs.status_code == 200 and "swagger-ui" in docs.get_data(as_text=True)


def test_docs_load_swagger_ui_from_this_service(client: object) -> None:
    page = client.get("/docs")  # type: ignore[attr-defined]
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert urls and all(u.startswith("/") and not u.startswith("//") for u in urls), urls
    assert "http://" not in html and "https://" not in html
    kinds = set()
    for url in urls:
        with client.get(url) as asset:  # type: ignore[attr-defined]
            assert asset.status_code == 200, url
            assert asset.mimetype in ("text/javascript", "text/css"), url
            assert len(asset.get_data()) > 1000
            kinds.add(asset.mimetype)
    assert "text/css" in kinds and len(kinds) == 2
