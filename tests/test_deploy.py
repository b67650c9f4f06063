"""deploy/ and the Dockerfile are checked without a Docker engine or a cluster:
the compose file against the compose-spec JSON schema (the copy that
check-jsonschema ships), the Kubernetes manifests against the Kubernetes
OpenAPI schemas of several versions (the copies that kubernetes-validate ships,
strict: no unknown field), and both for what ties them to the service."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from service.config import Settings

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S_VERSIONS = ["1.27.0", "1.30.0", kubernetes_validate.latest_version()]


def k8s_resources() -> dict[str, dict[str, Any]]:
    """Every resource under deploy/k8s, by kind."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            name = doc["metadata"]["name"]
            # The service's resources by kind; any other (the worker) by kind/name.
            key = doc["kind"] if name == "card-referee" else f"{doc['kind']}/{name}"
            assert key not in found, f"two {key}s"
            found[key] = doc
    return found


def settings_variables() -> set[str]:
    """The environment variables the service or its gunicorn settings read."""
    source = (ROOT / "service" / "config.py").read_text()
    source += (ROOT / "service" / "gunicorn_settings.py").read_text()
    return set(re.findall(r'"([A-Z][A-Z0-9_]+)"', source))


def check_compose(path: Path) -> subprocess.CompletedProcess[str]:
    """check-jsonschema on ``path`` against the Compose specification."""
    return subprocess.run(
        [
            Path(sys.executable).with_name("check-jsonschema"),
            "--builtin-schema",
            "vendor.compose-spec",
            path,
        ],
        capture_output=True,
        text=True,
    )


def test_compose_file_matches_the_compose_spec() -> None:
    result = check_compose(DEPLOY / "compose.yaml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_schema_check_rejects_a_broken_file(tmp_path: Path) -> None:
    broken = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    broken["services"]["referee"]["stop_grace_priod"] = "30s"  # a typo
    (tmp_path / "compose.yaml").write_text(yaml.safe_dump(broken))
    result = check_compose(tmp_path / "compose.yaml")
    assert result.returncode == 1 and "stop_grace_priod" in result.stdout + result.stderr


def test_compose_file_wires_the_service_proxy_and_redis() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    referee = services["referee"]
    assert referee["deploy"]["replicas"] == 2
    assert (DEPLOY / referee["build"]["context"] / referee["build"]["dockerfile"]).is_file()
    env = referee["environment"]
    assert set(env) <= settings_variables(), set(env) - settings_variables()
    # Behind the proxy, per-address limits must read the client's address.
    assert env["TRUSTED_PROXIES"] == "1"
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    # gunicorn finishes requests in flight before docker's SIGKILL.
    assert int(referee["stop_grace_period"].removesuffix("s")) > int(
        env["GUNICORN_GRACEFUL_TIMEOUT"]
    )
    # Redis runs with deploy/redis.conf, which keeps an append-only file.
    redis = services["redis"]
    mounts = dict(v.split(":")[:2] for v in redis["volumes"])
    assert mounts["./redis.conf"] in redis["command"]
    conf = (DEPLOY / "redis.conf").read_text()
    assert re.search(r"^appendonly yes$", conf, re.M)
    assert re.search(r"^appendfsync everysec$", conf, re.M)
    assert re.search(r"^maxmemory-policy noeviction$", conf, re.M)
    # The proxy sends to the referee service's port (test_nginx_accepts_... runs
    # nginx -t on the file itself).
    proxy = services["proxy"]
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in proxy["volumes"]
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert re.search(r"^\s*server referee:8000\b", nginx, re.M)


NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
)
needs_nginx = pytest.mark.skipif(
    NGINX is None,
    reason="nginx is not installed (apt-get install nginx-light): deploy/nginx.conf is not "
    "validated here",
)


def nginx_version() -> tuple[int, ...]:
    assert NGINX is not None
    out = subprocess.run([NGINX, "-v"], capture_output=True, text=True).stderr
    match = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out)
    assert match, out
    return tuple(int(n) for n in match.groups())


def nginx_test(text: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """``nginx -t`` on the configuration ``text``, all its paths in ``folder``.

    The compose file runs the service's replicas as ``referee`` behind Docker's
    DNS; here that name does not resolve, so it is 127.0.0.1 (nginx resolves an
    upstream's names when it loads the configuration). ``resolve`` on an
    upstream server exists from nginx 1.27.3 (the image's 1.27); an older
    nginx is given the file without it, everything else as written."""
    text = text.replace("server referee:8000", "server 127.0.0.1:8000")
    if nginx_version() < (1, 27, 3):
        text = re.sub(r"(\bserver 127\.0\.0\.1:\d+[^;]*?) resolve;", r"\1;", text)
    (folder / "nginx.conf").write_text(text)
    assert NGINX is not None
    return subprocess.run(
        [NGINX, "-t", "-p", f"{folder}/", "-c", str(folder / "nginx.conf"),
         "-g", f"pid {folder}/nginx.pid; error_log stderr;"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip


@needs_nginx
def test_nginx_accepts_the_proxy_configuration(tmp_path: Path) -> None:
    result = nginx_test((DEPLOY / "nginx.conf").read_text(), tmp_path)
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


@needs_nginx
def test_nginx_check_rejects_a_broken_configuration(tmp_path: Path) -> None:
    text = (DEPLOY / "nginx.conf").read_text()
    broken = text.replace("proxy_read_timeout", "proxy_raed_timeout")  # a typo
    assert broken != text
    result = nginx_test(broken, tmp_path)
    assert result.returncode != 0 and "proxy_raed_timeout" in result.stderr


@needs_nginx
def test_the_proxy_hides_metrics_and_passes_the_rest(tmp_path: Path) -> None:
    # nginx itself, not the text: /metrics is 404 at the proxy, the rest reaches the
    # upstream (here nothing listens, so 502), with the body limit the service has.
    from benchmarks.processes import free_port

    port = free_port()
    text = (DEPLOY / "nginx.conf").read_text().replace("listen 8080;", f"listen 127.0.0.1:{port};")
    text = text.replace("server referee:8000", f"server 127.0.0.1:{free_port()}")
    assert nginx_test(text, tmp_path).returncode == 0
    assert NGINX is not None
    proc = subprocess.Popen(
        [NGINX, "-p", f"{tmp_path}/", "-c", str(tmp_path / "nginx.conf"),
         "-g", f"pid {tmp_path}/nginx.pid; error_log stderr; daemon off;"],
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        import urllib.error
        import urllib.request

        def status(path: str, data: bytes | None = None) -> int:
            for _ in range(100):
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", data, 5) as r:
                        return int(r.status)
                except urllib.error.HTTPError as error:
                    return int(error.code)
                except OSError:
                    time.sleep(0.05)
            raise AssertionError("nginx did not answer")

        assert status("/metrics") == 404
        assert status("/healthz") == 502
        assert status("/v1/tables", b"x" * (65 * 1024)) == 413
        # A round record to check may be up to 1 MiB, as the service takes.
        assert status("/v1/checks/deal-proof", b"x" * (1000 * 1024)) == 502
        assert status("/v1/checks/deal-proof", b"x" * (1025 * 1024)) == 413
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("version", K8S_VERSIONS)
def test_kubernetes_manifests_match_the_schemas(version: str) -> None:
    resources = k8s_resources()
    assert set(resources) == {
        "ConfigMap",
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "Deployment/card-referee-worker",
    }
    for resource in resources.values():
        kubernetes_validate.validate(resource, version, strict=True)


def test_kubernetes_schema_check_rejects_a_broken_manifest() -> None:
    deployment = k8s_resources()["Deployment"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["readinessProbe"]["httpGet"]["paht"] = "/readyz"  # a typo
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSIONS[-1], strict=True)


def test_kubernetes_manifests_fit_together_and_fit_the_service() -> None:
    r = k8s_resources()
    deployment, pod = r["Deployment"], r["Deployment"]["spec"]["template"]
    labels = pod["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert r["Service"]["spec"]["selector"].items() <= labels.items()
    assert r["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    target = r["HorizontalPodAutoscaler"]["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    assert r["HorizontalPodAutoscaler"]["spec"]["minReplicas"] >= 2  # the PDB can hold 1

    (container,) = pod["spec"]["containers"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert r["Service"]["spec"]["ports"][0]["targetPort"] in ports
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["port"] in ports
    env = {e["name"]: e["value"] for e in container["env"]}
    assert int(env["PORT"]) == ports["http"]
    assert container["resources"]["requests"]["cpu"]  # the HPA's utilisation needs it

    config = r["ConfigMap"]
    assert container["envFrom"][0]["configMapRef"]["name"] == config["metadata"]["name"]
    assert set(config["data"]) <= settings_variables(), set(config["data"]) - settings_variables()
    assert config["data"]["TRUSTED_PROXIES"] == "1"  # behind an Ingress
    # preStop, then gunicorn's graceful timeout, end before the kubelet's SIGKILL.
    pre_stop = int(container["lifecycle"]["preStop"]["exec"]["command"][-1])
    graceful = int(config["data"]["GUNICORN_GRACEFUL_TIMEOUT"])
    assert pod["spec"]["terminationGracePeriodSeconds"] > pre_stop + graceful
    assert pod["spec"]["securityContext"]["runAsUser"] == dockerfile_user()


def test_kubernetes_runs_the_worker_with_its_health_check() -> None:
    r = k8s_resources()
    worker = r["Deployment/card-referee-worker"]
    pod = worker["spec"]["template"]
    assert worker["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    # Not behind the service's Service, nor counted by its PDB.
    assert not r["Service"]["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    (container,) = pod["spec"]["containers"]
    assert container["command"] == ["referee", "worker"]
    assert container["livenessProbe"]["exec"]["command"] == ["referee", "worker", "--health"]
    service = r["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == service["image"]
    assert container["envFrom"] == service["envFrom"]
    assert pod["spec"]["securityContext"]["runAsUser"] == dockerfile_user()
    # Its health file is under the writable /tmp (the root file system is read-only).
    assert Settings().worker_health_file.startswith("/tmp/")
    assert [m["mountPath"] for m in container["volumeMounts"]] == ["/tmp"]
    # Its own metrics: the port it serves them on is the one scraped.
    port = {e["name"]: e["value"] for e in container["env"]}["WORKER_METRICS_PORT"]
    assert pod["metadata"]["annotations"]["prometheus.io/port"] == port
    assert [p["containerPort"] for p in container["ports"]] == [int(port)]


def test_compose_runs_the_worker_with_its_health_check() -> None:
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    worker = services["worker"]
    assert worker["command"] == ["referee", "worker"]
    assert worker["healthcheck"]["test"] == ["CMD", "referee", "worker", "--health"]
    assert worker["image"] == services["referee"]["image"]
    assert worker["environment"]["REDIS_URL"] == services["referee"]["environment"]["REDIS_URL"]
    assert set(worker["environment"]) <= settings_variables()
    assert worker["read_only"] and worker["tmpfs"] == ["/tmp"]
    assert worker["expose"] == [worker["environment"]["WORKER_METRICS_PORT"]]


def dockerfile_user() -> int:
    """The numeric user of the Dockerfile's runtime stage."""
    final = (ROOT / "Dockerfile").read_text().split("\nFROM ")[-1]
    match = re.search(r"^USER (\d+)(:\d+)?$", final, re.M)
    assert match, "the runtime stage names a numeric USER"
    return int(match.group(1))


def test_dockerfile_runs_gunicorn_as_a_user_with_a_healthcheck() -> None:
    text = (ROOT / "Dockerfile").read_text()
    stages = re.findall(r"^FROM ", text, re.M)
    assert len(stages) >= 2  # build wheels, then a runtime without the compiler
    assert dockerfile_user() != 0
    final = text.split("\nFROM ")[-1]
    assert "gcc" not in final
    assert re.search(r"^HEALTHCHECK .*\n?.*/healthz", final, re.M)
    assert re.search(r'^CMD \["gunicorn", "--config", "/app/gunicorn.conf.py"', final, re.M)
    assert "COPY deploy/gunicorn.conf.py /app/gunicorn.conf.py" in final
    for source in re.findall(r"^COPY (?!--from)(.+) \S+$", text, re.M):
        for item in source.split():
            assert (ROOT / item).exists(), item
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored


def test_gunicorn_accepts_the_containers_configuration(tmp_path: Path) -> None:
    # What the image's CMD runs, with the app loaded (a Redis client connects lazily).
    env = {
        **os.environ,
        "REDIS_URL": "redis://127.0.0.1:1/0",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "GUNICORN_WORKER_CLASS": "gevent",
        "WEB_CONCURRENCY": "3",
    }
    result = subprocess.run(
        [
            Path(sys.executable).with_name("gunicorn"),
            "--check-config",
            "--print-config",
            "--config",
            DEPLOY / "gunicorn.conf.py",
            "service.wsgi:app",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    printed = {
        key.strip(): value.strip()
        for key, _, value in (line.partition(" = ") for line in result.stdout.splitlines())
    }
    assert printed["workers"] == "3"
    assert printed["worker_class"] == "service.workers.GeventWorker"
    assert "child_exit" in printed["child_exit"]  # the hook that keeps metrics right
