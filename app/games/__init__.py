"""The games. Importing this package imports every game package, and each registers itself."""

from __future__ import annotations

import importlib
import pkgutil


def load_all() -> None:
    """Import every game subpackage (each calls ``app.engine.registry.register``)."""
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            importlib.import_module(f"{__name__}.{module.name}")


load_all()
