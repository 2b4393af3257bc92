# Kinds from evidence: what a scope does with a name shows what it is; module evidence vetoes.
import torch


def uses_tensor_methods(x, y, model, cfg):
    n = x.size(0)
    y.expand_as(x)
    model.eval()
    reveal(x)  # reveal: tensor
    reveal(y)  # reveal: tensor
    reveal(model)  # reveal: module {module:model}
    reveal(cfg)  # reveal: unknown


def arrays(block):
    flat = block.reshape(-1, 4)  # reveal: arraylike
    moved = flat.to("cuda:0")  # reveal: tensor {"cuda:0"}
    flat.cpu()
    reveal(flat)  # reveal: tensor


def local_from_unknown_call(source):
    data = load(source)
    reveal(data)  # reveal: tensor
    data.unsqueeze(0)
    reveal(data)  # reveal: tensor


def learned_on_the_way(config):
    reveal(config.value)  # reveal: unknown
    config.value.detach()
    reveal(config.value)  # reveal: tensor


def checked_types(value):
    if isinstance(value, dict):
        return {k: v for k, v in value.items()}
    value.unsqueeze(0)
    reveal(value)  # reveal: tensor


def unpacked(**inputs):
    reveal(inputs)  # reveal: unknown


def mapping_argument(model, inputs):
    return model(**inputs)


def module_output(model, batch):
    model.train()
    logits = model(batch)  # reveal: output {module:model} grad
    first = logits[0]  # reveal: output {module:model} grad
    field = logits.logits  # reveal: output {module:model} grad
    width = first.shape[-1]  # reveal: scalar
    kind = logits.dtype  # reveal: unknown
    with torch.no_grad():
        quiet = model(batch)  # reveal: output {module:model}
    return first


def indexed_along_axes(x1, x2, rows):
    first = x2[rows, :]
    reveal(x2)  # reveal: arraylike
    reveal(x1)  # reveal: unknown
