"""Gunicorn configuration for production: ``gunicorn -c deploy/gunicorn.conf.py service.wsgi:app``.

Every value comes from the environment; see ``service/gunicorn_settings.py``
for the variables and their defaults (the same ones ``referee serve`` uses).
"""

from service.gunicorn_settings import *  # noqa: F403
