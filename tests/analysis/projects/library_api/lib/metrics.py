import torch


def score(model, batch, device="cuda"):
    # Public: users of the library call it too, with the default; the project's own callers, all
    # passing device=, settle nothing for them. Whether it fails rests on those unseen callers:
    # likely, not sure (tests/test_projects.py checks the grade), so not shown by default.
    return model(batch.to(device))


def _score_batches(model, batches, device="cuda"):  # alone: TDV001
    return [score(model, batch, device=device) for batch in batches]
