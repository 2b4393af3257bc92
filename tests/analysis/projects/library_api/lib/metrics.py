import torch


def score(model, batch, device="cuda"):  # expect: TDV001
    # Public: users of the library call it too, with the default; the project's own callers
    # passing device= settle nothing for them.
    return model(batch.to(device))


def _score_batches(model, batches, device="cuda"):  # alone: TDV001
    return [score(model, batch, device=device) for batch in batches]
