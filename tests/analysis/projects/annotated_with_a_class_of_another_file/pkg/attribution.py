from .batches import Scorer, TokenBatch


def attribute_steps(batch: TokenBatch, steps: int) -> list:
    scores = [batch.ids[:, step].float().sum() for step in range(steps)]
    batch.detach().to("cpu")  # alone: TDV002
    return scores


def score(model: Scorer, batch):
    model.cuda()  # expect: TDV001
    return model(batch)
