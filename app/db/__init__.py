"""Storage: SQLAlchemy models, engine and session factories, migrations. Never commits by itself."""
