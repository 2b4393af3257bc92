from .ops import accelerate, place

__all__ = ["accelerate", "place"]
