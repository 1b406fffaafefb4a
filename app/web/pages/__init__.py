"""Server-rendered pages (HTML, htmx partials)."""
