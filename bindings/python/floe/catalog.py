"""pyiceberg's module path pyiceberg.catalog, for code that imports from it
(from floe.catalog import load_catalog). The names are floe's own, from
floe._catalog."""

from ._catalog import Catalog, load_catalog

__all__ = ["Catalog", "load_catalog"]
