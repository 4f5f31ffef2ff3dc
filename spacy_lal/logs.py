"""The package's logger, and messages said once per process (a fallback taken at every batch
is worth one line, not one per batch)."""
import logging
from functools import lru_cache

__all__ = ["logger", "log_once"]

logger = logging.getLogger("spacy_lal")


@lru_cache(maxsize=None)
def log_once(message: str, level: int = logging.INFO) -> None:
    """Log ``message`` at ``level`` the first time it is given."""
    logger.log(level, message)
