"""The speed benchmark (``python bench/run.py``); ``run.py`` says what it measures and how."""
