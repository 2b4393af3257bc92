from . import ops


def fast_step(batch):
    # Called only under a CUDA check (train.py): so are the calls it makes.
    return ops.synchronized(batch.to("cuda"))  # alone: TDV001
