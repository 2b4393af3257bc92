"""What the analysis knows about PyTorch's API: generated data and hand-written overrides."""
