# A slim image that migrates, then serves with several uvicorn workers as a non-root user.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/drachenhort
RUN useradd --create-home --uid 10001 drachenhort

# The locked dependencies first (hashes required), in their own layer.
COPY requirements/run.txt requirements/run.txt
RUN pip install --require-hashes --no-deps -r requirements/run.txt
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
# Editable: the app finds templates/, static/ and migrations/ beside its package, here. No
# dependencies and no build isolation: everything, setuptools included, came from the lock.
RUN pip install --no-deps --no-build-isolation -e . && pip check && mkdir -p var && chown drachenhort var

USER drachenhort
EXPOSE 8000
# `serve` runs the Alembic migrations first; replicas starting together take turns (an advisory
# lock on PostgreSQL, see migrations/env.py).
CMD ["drachenhort", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
