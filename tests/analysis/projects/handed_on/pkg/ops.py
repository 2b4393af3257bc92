def accelerate(batch):
    return batch.cuda()  # expect: TDV001
