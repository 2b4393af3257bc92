from .api import Detector
