import torch


def evaluate(model, batch, device="cuda"):  # expect: TDV001
    # Shown to the library's users by the package's __init__: they call it, unseen, and take the
    # default. That every call the project makes passes device= says nothing of theirs: sure.
    with torch.no_grad():
        return model(batch.to(device))
