from .models import Classifier

__all__ = ["Classifier"]
