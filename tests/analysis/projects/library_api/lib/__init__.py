from .evaluation import evaluate

__all__ = ["evaluate"]
