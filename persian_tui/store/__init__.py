"""The only package that speaks SQL."""

from .db import DatabaseError, Store, StoreBusy, StoreError
from .releases import ReleaseExists
from .runs import LeaseHeld

__all__ = ["DatabaseError", "LeaseHeld", "ReleaseExists", "Store", "StoreBusy", "StoreError"]
