import torch


def accelerate(batch):
    return batch.cuda()  # alone: TDV001


def synchronized(batch):
    torch.cuda.synchronize()  # alone: TDV001
    return batch
