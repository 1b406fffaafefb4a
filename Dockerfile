# A slim image that migrates, then serves with several uvicorn workers as a non-root user.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/drachenhort
RUN useradd --create-home --uid 10001 drachenhort

COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
# Editable: the app finds templates/, static/ and migrations/ beside its package, here.
RUN pip install -e . && mkdir -p var && chown drachenhort var

USER drachenhort
EXPOSE 8000
# `serve` runs the Alembic migrations first; replicas starting together take turns (an advisory
# lock on PostgreSQL, see migrations/env.py).
CMD ["drachenhort", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
