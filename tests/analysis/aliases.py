# A name that still holds a tensor from before ``x = x.to(device)`` keeps the unmoved tensor: the
# move says it was elsewhere, taken to be the CPU (a guess, so findings on it are only likely).
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def generate(model, tokens):
    prompt = tokens if tokens.dim() == 2 else None
    tokens = tokens.to(device)  # reveal: unknown {device}
    reveal(prompt)  # reveal: unknown {cpu}
    reveal(tokens)  # reveal: unknown {device}
    return prompt


# Each call's result is a value of its own: `raw` is `features`, `labels` is not.
features = load_features()
labels = load_labels()
raw = features
features = features.to(device)
reveal(raw)  # reveal: unknown {cpu}
reveal(labels)  # reveal: unknown


def unpacked(batch):
    # Unpacked from a value the code does not show: nothing says `kept` is `images` itself.
    images, targets = batch
    kept = images
    images = images.to(device)  # reveal: unknown {device}
    reveal(kept)  # reveal: unknown
    reveal(targets)  # reveal: unknown
    return kept
