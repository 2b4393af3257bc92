"""flake8-torchdevice: catch PyTorch device-placement bugs before they crash a run."""

__version__ = "0.1.0"
