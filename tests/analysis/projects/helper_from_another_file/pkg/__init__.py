from .data import load_batch, to_gpu

__all__ = ["load_batch", "to_gpu"]
